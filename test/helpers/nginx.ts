// Runs Debian's nginx as the load balancer in front of test instances, with the deployed configuration
// (deploy/nginx/petstore.conf.template) filled in the way the nginx container image fills it in.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './process.js'
import { makeTempDir } from './temp.js'

export const NGINX_BINARY = '/usr/sbin/nginx'
const TEMPLATE = fileURLToPath(new URL('../../deploy/nginx/petstore.conf.template', import.meta.url))

export function nginxAvailable(): boolean {
  return existsSync(NGINX_BINARY)
}

export interface Nginx {
  baseUrl: string
  stop(): Promise<void>
}

export async function startNginx(upstreams: [string, string]): Promise<Nginx> {
  const directory = makeTempDir()
  const port = await freePort()
  const site = readFileSync(TEMPLATE, 'utf8')
    .replaceAll('${PETSTORE_UPSTREAM_1}', upstreams[0])
    .replaceAll('${PETSTORE_UPSTREAM_2}', upstreams[1])
    .replaceAll('${NGINX_LISTEN}', `127.0.0.1:${port}`)
  writeFileSync(join(directory, 'petstore.conf'), site)
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(directory, temp))
  // The main configuration the nginx image provides around its conf.d, reduced to what a test needs.
  writeFileSync(join(directory, 'nginx.conf'), `
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${directory}/nginx.pid;
error_log ${directory}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${directory}/body;
  proxy_temp_path ${directory}/proxy;
  fastcgi_temp_path ${directory}/fastcgi;
  uwsgi_temp_path ${directory}/uwsgi;
  scgi_temp_path ${directory}/scgi;
  include ${directory}/petstore.conf;
}
`)
  const child: ChildProcess = spawn(NGINX_BINARY, ['-p', directory, '-c', join(directory, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] })
  let errors = ''
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${errors}`)
    try {
      await fetch(`${baseUrl}/healthz`)
      break
    } catch {
      if (Date.now() > deadline) throw new Error(`nginx did not start: ${errors}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  return {
    baseUrl,
    async stop() {
      child.kill('SIGQUIT')
      await exited
    },
  }
}
