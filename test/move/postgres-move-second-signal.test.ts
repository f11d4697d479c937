// A second signal ends petstore export at once, whichever of SIGTERM and SIGINT comes first: the first stops the
// export at its next step, and here that step waits (a table another transaction holds locked), so only the
// second one can end it. SIGTERM then SIGINT (a supervisor, then Ctrl-C) ends it as SIGTERM then SIGTERM does.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { loadConfig } from '../../src/config.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { openStore } from '../../src/db/store.js'
import { cliArguments } from '../helpers/cli-path.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'
import { makeTempDir } from '../helpers/temp.js'

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

  for (const [first, second] of [
    ['SIGTERM', 'SIGINT'],
    ['SIGINT', 'SIGTERM'],
    ['SIGTERM', 'SIGTERM'],
  ] as const) {
    it(`${first} then ${second} while the export waits for a lock: the second ends it at once`, async () => {
      const holder = new pg.Client({ connectionString: database.url })
      await holder.connect()
      try {
        await holder.query('begin')
        await holder.query('lock table service_secrets in access exclusive mode')
        const child = spawn(process.execPath, cliArguments(['export', join(makeTempDir(), 'shop.jsonl')]), {
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
        child.kill(first)
        await new Promise((resolve) => setTimeout(resolve, 300))
        assert.equal(child.exitCode, null, 'the first signal waits for the read')
        child.kill(second)
        const outcome = await Promise.race([
          ended,
          new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 3000).unref()),
        ])
        if (outcome === 'still running') child.kill('SIGKILL')
        assert.deepEqual(outcome, [null, second], stderr)
      } finally {
        await holder.query('rollback')
        await holder.end()
      }
    })
  }
})
