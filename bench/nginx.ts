// nginx in front of service instances, with the deployed configuration (deploy/nginx/petstore.conf.template,
// as the multi-instance test and compose use it): the two-instance figures. It is stopped with the other
// processes on every way out.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { NGINX_BINARY, writeNginxConfiguration } from '../test/helpers/nginx-config.js'
import { freePort, registerTempDirectory, tail, track, type RunningServer } from './processes.js'

export function nginxAvailable(): boolean {
  return existsSync(NGINX_BINARY)
}

/** Balances over `upstreams` (host:port); one instance is given twice, as the template names two. */
export async function startNginx(name: string, upstreams: [string, string], parent: string): Promise<RunningServer> {
  const directory = mkdtempSync(join(parent, 'nginx-'))
  registerTempDirectory(directory)
  const port = await freePort()
  const configuration = writeNginxConfiguration(directory, upstreams, `127.0.0.1:${port}`)
  const output = tail()
  const child = spawn(NGINX_BINARY, ['-p', directory, '-c', configuration], { stdio: ['ignore', 'ignore', 'pipe'] })
  child.stderr?.on('data', output.append)
  const handle = track(child, name, output.read)
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${output.read()}`)
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await handle.stop()
      throw new Error(`${name} did not answer /healthz within 10 s: ${output.read()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { name, baseUrl, pid: handle.pid, stop: handle.stop }
}
