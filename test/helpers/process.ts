// Runs the petstore command as a separate process, as an operator would.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { Tuning } from '../../src/config/tuning.js'
import { cliArguments } from './cli-path.js'
import { listeningPort } from './listening-port.js'
import { PATIENT_DATABASE } from './store.js'

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

/**
 * Waits until a `petstore serve` child started with PORT=0 listens and answers /healthz, and returns its base URL.
 * Throws (after killing it) when it exits first or has not answered within `timeoutMs`; `output` is for the message.
 */
export async function waitUntilServing(child: ChildProcess, output: () => string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output()}`)
    const port = child.pid === undefined ? undefined : await listeningPort(child.pid)
    if (port !== undefined) {
      const baseUrl = `http://127.0.0.1:${port}`
      const healthy = await fetch(`${baseUrl}/healthz`).then(
        async (response) => {
          await response.arrayBuffer()
          return response.ok
        },
        () => false, // listening, not answering yet
      )
      if (healthy) return baseUrl
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not start: ${output()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
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
 * Starts `petstore serve` on a port the kernel picks and waits until the process listens and /healthz answers there.
 * With `tuning`, the server runs the same start from the sources (tuned-serve.ts), since the command takes no
 * tuning.
 */
export async function spawnServer(env: Record<string, string>, tuning?: Partial<Tuning>): Promise<ServerProcess> {
  const command = tuning ? ['--import', 'tsx', TUNED_SERVE, JSON.stringify(tuning)] : cliArguments(['serve'])
  const child = spawn(process.execPath, command, {
    // Quotas no test reaches and a patient database, unless it sets its own (as in helpers/server.ts).
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_KEY: '1000000000',
      RATE_LIMIT_ANONYMOUS: '1000000000',
      ...PATIENT_DATABASE,
      ...env,
      PORT: '0',
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const baseUrl = await waitUntilServing(child, () => output)
  return { baseUrl, child, output: () => output, exited }
}

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs `petstore ARGS` to completion with only PATH and `env` set; in `cwd` when given, as another user when `uid`
 * and `gid` are (the tests run as root).
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  {
    closeStdout = false,
    stdoutInto,
    ...options
  }: Pick<SpawnOptions, 'cwd' | 'uid' | 'gid'> & {
    closeStdout?: boolean
    /** An open file descriptor to give the command as its standard output (`> FILE`, `>> FILE`). */
    stdoutInto?: number
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliArguments(args), {
      env: { PATH: process.env.PATH ?? '', ...env },
      ...options,
      stdio: ['ignore', stdoutInto ?? 'pipe', 'pipe'],
    })
    // A reader that goes away before the command writes (`petstore export - | head -c 0`).
    if (closeStdout) child.stdout?.destroy()
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** Requests to a spawned server with a static key: `json` is sent as the body (POST unless another method). */
export function staticKeyClient(instance: Pick<ServerProcess, 'baseUrl'>, key: string) {
  return {
    request: (path: string, init: RequestInit & { json?: unknown } = {}) => {
      const { json, ...rest } = init
      return fetch(instance.baseUrl + path, {
        ...rest,
        ...(json === undefined ? {} : { method: rest.method ?? 'POST', body: JSON.stringify(json) }),
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      })
    },
  }
}

/** Kills every spawned server still running and waits until each has ended. */
export async function killAll(instances: readonly ServerProcess[]): Promise<void> {
  for (const instance of instances) instance.child.kill('SIGKILL')
  await Promise.all(instances.map((instance) => instance.exited))
}
