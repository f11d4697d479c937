// Child processes and temporary files of a benchmark run, and their clean-up on every way out: normal end,
// error, Ctrl-C, SIGTERM. Everything listens on 127.0.0.1 only.
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { shippedCommand, type ShippedCommand } from './shipped-command.js'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** The service's command as npm start runs it (the production bundle), with npm start's node flags. */
export const SHIPPED = shippedCommand(ROOT)
export const CLI = SHIPPED.script

const liveChildren = new Set<ChildProcess>()
const tempDirectories = new Set<string>()

/** Last resort, synchronous: runs from the 'exit' event, when nothing asynchronous can happen any more. */
function killEverything(): void {
  for (const child of liveChildren) child.kill('SIGKILL')
  liveChildren.clear()
  for (const directory of tempDirectories) rmSync(directory, { recursive: true, force: true })
  tempDirectories.clear()
}

let installed = false
export function installCleanup(): void {
  if (installed) return
  installed = true
  process.on('exit', killEverything)
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.on(signal, () => {
      process.stderr.write(`\nbench: ${signal}, stopping the servers and removing temporary files\n`)
      process.exit(code)
    })
  }
}

/** Ends the run (and everything it started) once `minutes` have passed, whatever is happening. */
export function startWatchdog(minutes: number): void {
  setTimeout(() => {
    process.stderr.write(`\nbench: still running after ${minutes} minutes; giving up\n`)
    process.exit(124)
  }, minutes * 60_000).unref()
}

const TMPFS_MAGIC = 0x01021994

/** A private directory for databases and logs; on a RAM file system fsync is free, which would flatter create. */
export function makeTempDirectory(parent = tmpdir()): string {
  const directory = mkdtempSync(join(parent, 'petstore-bench-'))
  tempDirectories.add(directory)
  if (statfsSync(directory).type === TMPFS_MAGIC) {
    process.stderr.write(
      `bench: warning: ${directory} is on tmpfs, where fsync costs nothing; use --dir on a disk for a fair ` +
        `create figure\n`,
    )
  }
  return directory
}

/** Removed at the end like the temporary directory, however the run ends. */
export function registerTempDirectory(directory: string): void {
  tempDirectories.add(directory)
}

export function removeTempDirectory(directory: string): void {
  rmSync(directory, { recursive: true, force: true })
  tempDirectories.delete(directory)
}

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

export interface RunningServer {
  name: string
  baseUrl: string
  pid: number
  /** SIGTERM, then SIGKILL if it has not exited within the grace period. */
  stop(): Promise<void>
}

/** Stopped with the others on every way out; `stop` is SIGTERM, then SIGKILL after a grace period. */
export function track(
  child: ChildProcess,
  name: string,
  readTail: () => string,
): { pid: number; exited: Promise<void>; stop: () => Promise<void> } {
  if (child.pid === undefined) throw new Error(`${name} did not start`)
  liveChildren.add(child)
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      liveChildren.delete(child)
      resolve()
    }),
  )
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 12_000)
    await exited
    clearTimeout(timer)
  }
  child.once('exit', (code, signal) => {
    if (code !== 0 && code !== null && signal === null)
      process.stderr.write(`bench: ${name} exited with ${code}\n${readTail()}\n`)
  })
  return { pid: child.pid, exited, stop }
}

export function tail(): { append: (chunk: Buffer) => void; read: () => string } {
  let text = ''
  return {
    append: (chunk) => {
      text = (text + chunk.toString()).slice(-16_384)
    },
    read: () => text,
  }
}

/** How long a server may take to start: under a wrapper (valgrind runs node some fifty times slower) much longer. */
const startLimitMs = (wrapper: string[] | undefined) => (wrapper ? 300_000 : 30_000)

/** The command and arguments that run node with `args`, under `wrapper` (a command and its options) if given. */
function nodeCommand(wrapper: string[] | undefined, args: string[]): [string, string[]] {
  const [command, ...options] = wrapper ?? []
  return command === undefined ? [process.execPath, args] : [command, [...options, process.execPath, ...args]]
}

async function waitUntilHealthy(
  baseUrl: string,
  child: ChildProcess,
  describe: () => string,
  limitMs: number,
): Promise<void> {
  const deadline = Date.now() + limitMs
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the service exited with ${child.exitCode} while starting:\n${describe()}`)
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`the service did not answer /healthz within ${limitMs / 1000} s:\n${describe()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

export interface ServiceOptions {
  name: string
  databaseUrl: string
  apiKey: string
  /** Where the service's log lines go: a file path, or /dev/null. Logging stays on (LOG_LEVEL=info) either way. */
  logPath: string
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[]
  /** Extra environment variables (they override the defaults below). */
  env?: Record<string, string>
  /** Another build's start command, flags and environment included (for --before); this checkout's by default. */
  command?: ShippedCommand
  /** A command node runs under, with its options (e.g. valgrind for instruction counts). */
  wrapper?: string[]
}

/**
 * `node [flags] SCRIPT serve` exactly as npm start runs it, with production settings, exactly as an operator starts it.
 * The port is probed
 * free first, but another process can take it before the service binds it (a busy machine running test
 * suites does): such a start is retried on another port.
 */
export async function startService(options: ServiceOptions): Promise<RunningServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceOnce(options, await freePort())
    } catch (error) {
      if (attempt >= 3 || !(error instanceof Error) || !error.message.includes('EADDRINUSE')) throw error
    }
  }
}

async function startServiceOnce(options: ServiceOptions, port: number): Promise<RunningServer> {
  const logFd = openSync(options.logPath, 'a')
  const stderr = tail()
  const child = spawn(
    ...nodeCommand(options.wrapper, [
      ...(options.command ?? SHIPPED).nodeFlags,
      ...(options.nodeFlags ?? []),
      (options.command ?? SHIPPED).script,
      'serve',
    ]),
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: options.databaseUrl,
        PETSTORE_API_KEYS: options.apiKey,
        LOG_LEVEL: 'info',
        // Rate limiting stays on, its counting included in every figure, but one benchmark key sends thousands of
        // requests a second: the quota is raised so that the benchmark measures capacity, not the quota.
        RATE_LIMIT_PER_KEY: '1000000000',
        ...(options.command ?? SHIPPED).env,
        ...options.env,
      },
      stdio: ['ignore', logFd, 'pipe'],
    },
  )
  closeSync(logFd)
  child.stderr?.on('data', stderr.append)
  const handle = track(child, options.name, stderr.read)
  const baseUrl = `http://127.0.0.1:${port}`
  try {
    await waitUntilHealthy(baseUrl, child, stderr.read, startLimitMs(options.wrapper))
  } catch (error) {
    await handle.stop()
    throw error
  }
  return { name: options.name, baseUrl, pid: handle.pid, stop: handle.stop }
}

/** One of the bench's own servers (compiled by compile.ts): it listens on a port of its choosing and prints it. */
export async function startBenchServer(
  name: string,
  script: string,
  env: Record<string, string>,
  wrapper?: string[],
  nodeFlags: string[] = [],
): Promise<RunningServer> {
  const output = tail()
  const child = spawn(...nodeCommand(wrapper, [...nodeFlags, script]), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const handle = track(child, name, output.read)
  child.stderr?.on('data', output.append)
  const port = await new Promise<number>((resolve, reject) => {
    const limitMs = startLimitMs(wrapper)
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within ${limitMs / 1000} s:\n${output.read()}`)),
      limitMs,
    )
    child.stdout?.on('data', (chunk: Buffer) => {
      output.append(chunk)
      const match = /listening (\d+)/.exec(output.read())
      if (match) {
        clearTimeout(timer)
        resolve(Number(match[1]))
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with ${code} while starting:\n${output.read()}`))
    })
  }).catch(async (error: unknown) => {
    await handle.stop()
    throw error
  })
  return {
    name,
    baseUrl: `http://127.0.0.1:${port}`,
    pid: handle.pid,
    // Closing its stdin is how our own servers are told to go; the signal is the fallback.
    stop: async () => {
      child.stdin?.end()
      await Promise.race([handle.exited, new Promise((resolve) => setTimeout(resolve, 2000))])
      await handle.stop()
    },
  }
}

/** Runs a command to completion (e.g. `petstore migrate`), failing with its output on a non-zero exit. */
export async function runToCompletion(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  liveChildren.add(child)
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  liveChildren.delete(child)
  if (code !== 0) throw new Error(`${args.join(' ')} failed (${code}):\n${output}`)
  return output
}
