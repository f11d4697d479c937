// A log destination that fails must never keep the service from stopping: on SIGTERM the process exits
// cleanly whether the reader of its standard output has closed its end (writes fail with EPIPE) or is
// stuck with the pipe still open (the pipe fills up and every write fails with EAGAIN).
import assert from 'node:assert/strict'
import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { after, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { DEFAULT_TUNING } from '../../src/config/tuning.js'
import { cliArguments } from '../helpers/cli-path.js'
import { waitUntilServing } from '../helpers/process.js'
import { makeTempDir, TEST_API_KEY } from '../helpers/server.js'

// Beyond the grace period, for a slow shared machine: the process either exits on its own or never does.
const EXIT_WAIT_MS = DEFAULT_TUNING.shutdownGraceMs + 20_000
// More log than any pipe or socket buffer holds: 400 lines of about 8 KB each.
const FILLING_REQUESTS = 400
const LONG_QUERY = `pad=${'a'.repeat(8000)}`

const directory = makeTempDir()
const running = new Set<ChildProcessByStdio<null, Readable, Readable>>()
after(() => {
  for (const child of running) child.kill('SIGKILL')
  rmSync(directory, { recursive: true, force: true })
})

/** Starts `petstore serve` with stdout piped to this process, which does not read it. */
async function startServe(name: string) {
  const child = spawn(process.execPath, cliArguments(['serve']), {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATABASE_URL: `file:${join(directory, `${name}.db`)}`,
      PETSTORE_API_KEYS: TEST_API_KEY,
      RATE_LIMIT_PER_KEY: '1000000000',
      RATE_LIMIT_ANONYMOUS: '1000000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child)
      resolve({ code, signal })
    })
  })
  const baseUrl = await waitUntilServing(child, () => stderr, 60_000)
  return { child, baseUrl, exited, stderr: () => stderr }
}

async function request(baseUrl: string, path: string): Promise<number> {
  const response = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${TEST_API_KEY}` } })
  await response.arrayBuffer()
  return response.status
}

/** Sends SIGTERM and waits, at most EXIT_WAIT_MS, for the process to end. */
async function terminate(server: Awaited<ReturnType<typeof startServe>>) {
  server.child.kill('SIGTERM')
  const outcome = await Promise.race([server.exited, sleep(EXIT_WAIT_MS, 'still running' as const, { ref: false })])
  assert.notEqual(
    outcome,
    'still running',
    `the server ignored SIGTERM for ${EXIT_WAIT_MS} ms; stderr: ${server.stderr()}`,
  )
  return outcome
}

describe('a server whose log pipe breaks', () => {
  it('stops on SIGTERM when the reader has closed its end of the pipe', async () => {
    const server = await startServe('closed')
    server.child.stdout.destroy()
    assert.equal(await request(server.baseUrl, '/v1/pets'), 200)
    assert.deepEqual(await terminate(server), { code: 0, signal: null })
  })

  it('stops on SIGTERM when the reader is stuck and the pipe is full, and answers requests meanwhile', async () => {
    const server = await startServe('stuck')
    // stdout is never read: once its buffers are full, every log write fails with EAGAIN.
    for (let index = 0; index < FILLING_REQUESTS; index++) {
      assert.equal(await request(server.baseUrl, `/healthz?${LONG_QUERY}&n=${index}`), 200)
    }
    assert.equal(await request(server.baseUrl, '/v1/pets'), 200)
    assert.deepEqual(await terminate(server), { code: 0, signal: null })
    assert.equal(server.stderr(), '')
  })
})
