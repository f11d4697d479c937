// npm start, stopped as a process manager or a terminal stops it: a signal to the npm process. The server
// must stop with it and free its port. (With "node …" run through sh, npm passed the signal to sh, sh died,
// and node ran on, orphaned, holding the port: the next start failed with EADDRINUSE.)
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { DEFAULT_TUNING } from '../../src/config/tuning.js'
import { freePort } from '../helpers/process.js'
import { makeTempDir, TEST_API_KEY } from '../helpers/server.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
// Bounds for a slow shared machine, not measurements: a healthy run takes a fraction of them.
const START_WAIT_MS = 60_000
const EXIT_WAIT_MS = DEFAULT_TUNING.shutdownGraceMs + 20_000

const directory = makeTempDir()
const leftovers = new Set<number>()
after(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  rmSync(directory, { recursive: true, force: true })
})

before(() => {
  // npm start runs the production bundle, which npm ci builds (the prepare script) and npm test builds before
  // its passes. Built here only when missing (this file run on its own in a fresh checkout): a rebuild removes
  // the bundle's files for a moment, and the other test files, running beside this one, start it too.
  if (!existsSync(join(ROOT, 'dist/bundle/cli.js')))
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })
})

/** The process and its descendants, from the process table. */
function processTree(root: number): number[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
  const children = new Map<number, number[]>()
  for (const line of table.trim().split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number) as [number, number]
    children.set(ppid, [...(children.get(ppid) ?? []), pid])
  }
  const tree = [root]
  for (let index = 0; index < tree.length; index++) tree.push(...(children.get(tree[index] as number) ?? []))
  return tree
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
  })
}

describe('npm start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops with its server on ${signal} to the npm process: no process left, the port free`, async () => {
      const port = await freePort()
      const npm = spawn('npm', ['start', '--ignore-scripts'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? directory,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          DATABASE_URL: `file:${join(directory, `${signal}.db`)}`,
          PETSTORE_API_KEYS: TEST_API_KEY,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      npm.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
      npm.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
        npm.once('exit', (code, exitSignal) => resolve({ code, signal: exitSignal }))
      })
      assert.ok(npm.pid)
      leftovers.add(npm.pid)

      const deadline = Date.now() + START_WAIT_MS
      for (;;) {
        assert.equal(npm.exitCode, null, `npm start exited: ${output}`)
        const healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          async (response) => {
            await response.arrayBuffer()
            return response.ok
          },
          () => false,
        )
        if (healthy) break
        assert.ok(Date.now() < deadline, `npm start did not start the server: ${output}`)
        await sleep(100)
      }
      const tree = processTree(npm.pid)
      for (const pid of tree) leftovers.add(pid)

      npm.kill(signal)
      const outcome = await Promise.race([exited, sleep(EXIT_WAIT_MS, 'still running' as const, { ref: false })])
      assert.deepEqual(outcome, { code: 0, signal: null }, output)
      const goneBy = Date.now() + EXIT_WAIT_MS
      for (const pid of tree) {
        while (isRunning(pid)) {
          assert.ok(
            Date.now() < goneBy,
            `process ${pid} of npm start is still running after npm exited: ` +
              `${execFileSync('ps', ['-o', 'pid,ppid,args', '-p', String(pid)], { encoding: 'utf8' })}`,
          )
          await sleep(100)
        }
      }
      assert.equal(await portIsFree(port), true)
    })
  }
})
