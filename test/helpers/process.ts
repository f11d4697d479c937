// Runs the petstore command as a separate process, as an operator would.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { Tuning } from '../../src/config/tuning.js'
import { CLI } from './cli-path.js'

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

export interface ServerProcess {
  baseUrl: string
  child: ChildProcess
  output(): string
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>
}

const TUNED_SERVE = fileURLToPath(new URL('tuned-serve.ts', import.meta.url))

/**
 * Starts `petstore serve` with the given environment and waits until /healthz answers. With `tuning`, the server
 * runs the same start from the sources (tuned-serve.ts), since the command takes no tuning.
 */
export async function spawnServer(env: Record<string, string>, tuning?: Partial<Tuning>): Promise<ServerProcess> {
  const port = await freePort()
  const command = tuning ? [TUNED_SERVE, JSON.stringify(tuning)] : [CLI, 'serve']
  const child = spawn(process.execPath, ['--import', 'tsx', ...command], {
    // Quotas no test reaches, unless it sets its own (as in helpers/server.ts).
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_KEY: '1000000000',
      RATE_LIMIT_ANONYMOUS: '1000000000',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output}`)
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not start: ${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { baseUrl, child, output: () => output, exited }
}

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `petstore ARGS` to completion; as another user when `user` is given (the test runs as root). */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  user?: { uid: number; gid: number },
): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    ...user,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)))
  return { code, stdout, stderr }
}
