// A second signal ends petstore export at once, whichever of SIGTERM and SIGINT comes first: the first stops the
// export at its next step, and here that step waits (a table another transaction holds locked), so only the
// second one can end it. SIGTERM then SIGINT (a supervisor, then Ctrl-C) ends it as SIGTERM then SIGTERM does.
// As process 1 of a container run without an init, where the kernel ignores a signal without a handler, the
// second signal still ends it.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { loadConfig } from '../../src/config.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { openStore } from '../../src/db/store.js'
import { cliArguments } from '../helpers/cli-path.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'
import { makeTempDir } from '../helpers/temp.js'

/** The one child process of `pid` (unshare's, which runs as process 1 of the new namespace). */
function childOf(pid: number): number | undefined {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim()
  return children === '' ? undefined : Number(children.split(' ')[0])
}

function canUnshare(): boolean {
  return process.getuid?.() === 0 && spawnSync('unshare', ['--pid', '--fork', 'true']).status === 0
}

async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('petstore export on PostgreSQL, stopped by two signals', () => {
  let database: TestDatabase
  before(async () => {
    database = await createTestDatabase('postgres')
    const store = openStore(loadConfig({ DATABASE_URL: database.url }))
    try {
      await migrateToLatest(store.admin)
    } finally {
      await store.close()
    }
  })
  after(() => database.drop())

  /**
   * Sends `first`, then `second`, to an export waiting for a lock; what ended it ([code, signal]), or 'still
   * running' 3 s after the second. As process 1 of a PID namespace of its own (a container's entry point run
   * without an init), it is the export's process, not unshare's, that gets the signals.
   */
  async function interruptTwice(
    first: NodeJS.Signals,
    second: NodeJS.Signals,
    { asProcessOne = false } = {},
  ): Promise<[number | null, NodeJS.Signals | null] | 'still running'> {
    const holder = new pg.Client({ connectionString: database.url })
    await holder.connect()
    try {
      await holder.query('begin')
      await holder.query('lock table service_secrets in access exclusive mode')
      const command = [process.execPath, ...cliArguments(['export', join(makeTempDir(), 'shop.jsonl')])]
      const [program = '', ...args] = asProcessOne
        ? ['unshare', '--pid', '--fork', '--mount-proc', ...command]
        : command
      const child = spawn(program, args, {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url },
        stdio: ['ignore', 'ignore', 'pipe'],
      })
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.once('close', (code, signal) => resolve([code, signal])),
      )
      // The export's read waits for the lock this test holds.
      await until(async () => {
        const { rows } = await holder.query<{ waiting: number }>(
          'select count(*)::int as waiting from pg_locks ' +
            "where not granted and relation = 'service_secrets'::regclass",
        )
        return (rows[0]?.waiting ?? 0) > 0
      })
      const exporter = asProcessOne ? childOf(child.pid ?? 0) : child.pid
      assert.ok(exporter, 'the export process')
      process.kill(exporter, first)
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.equal(child.exitCode, null, 'the first signal waits for the read')
      process.kill(exporter, second)
      const outcome = await Promise.race([
        ended,
        new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 3000).unref()),
      ])
      if (outcome === 'still running') child.kill('SIGKILL')
      if (outcome !== 'still running' && outcome[0] !== null && outcome[0] < 128) assert.fail(stderr)
      return outcome
    } finally {
      await holder.query('rollback')
      await holder.end()
    }
  }

  for (const [first, second] of [
    ['SIGTERM', 'SIGINT'],
    ['SIGINT', 'SIGTERM'],
    ['SIGTERM', 'SIGTERM'],
  ] as const) {
    it(`${first} then ${second} while the export waits for a lock: the second ends it at once`, async () => {
      assert.deepEqual(await interruptTwice(first, second), [null, second])
    })
  }

  it(
    'as process 1 (a container without an init), where a signal without a handler is ignored: exits 143',
    {
      skip: canUnshare() ? false : 'needs root and unshare, for a PID namespace',
    },
    async () => {
      assert.deepEqual(await interruptTwice('SIGTERM', 'SIGTERM', { asProcessOne: true }), [143, null])
    },
  )
})
