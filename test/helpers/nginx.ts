// Runs Debian's nginx as the load balancer in front of test instances, with the deployed configuration
// (deploy/nginx/petstore.conf.template) filled in the way the nginx container image fills it in.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { NGINX_BINARY, writeNginxConfiguration } from './nginx-config.js'
import { freePort } from './process.js'
import { makeTempDir } from './temp.js'

export { NGINX_BINARY }

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
  const configuration = writeNginxConfiguration(directory, upstreams, `127.0.0.1:${port}`)
  const child: ChildProcess = spawn(NGINX_BINARY, ['-p', directory, '-c', configuration], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
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
