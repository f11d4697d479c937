// A migration rewrites whole tables, which at a large shop takes longer than DATABASE_STATEMENT_TIMEOUT_MS (a bound
// for the service's own statements, of milliseconds). Migrations run on a connection of their own without it:
// here `petstore migrate` with the least time-out the setting takes, on a shop of the schema before categories
// whose rewrite of 300,000 pets takes longer than that.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { loadConfig } from '../../src/config.js'
import { migrations } from '../../src/db/migrate.js'
import { describeDatabase } from '../../src/db/database-errors.js'
import { openStore } from '../../src/db/store.js'
import { migrateUntil } from '../helpers/migrations.js'
import { petstore } from '../helpers/move.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

describe('petstore migrate on a large PostgreSQL shop', () => {
  let database: TestDatabase
  let target: string
  before(async () => {
    database = await createTestDatabase('postgres')
    const config = loadConfig({ DATABASE_URL: database.url })
    target = describeDatabase(config.database)
    const store = openStore(config)
    try {
      assert.equal((await migrateUntil(store.migrations, '0010_event_log')).error, undefined)
      await sql`insert into pets (name, category_id, status)
        select 'pet ' || n, n % 1000, 'available' from generate_series(1, 300000) as n`.execute(store.migrations)
    } finally {
      await store.close()
    }
  })
  after(() => database?.drop())

  it('applies every migration, whatever DATABASE_STATEMENT_TIMEOUT_MS', async () => {
    const pending = Object.keys(migrations).filter((name) => name > '0010_event_log')
    const result = await petstore(['migrate'], { DATABASE_URL: database.url, DATABASE_STATEMENT_TIMEOUT_MS: '100' })
    assert.equal(result.stderr.split('\n').slice(1).join('\n'), '')
    assert.equal(result.code, 0)
    assert.equal(result.stdout, `Applied ${pending.length} migration(s) (${pending.join(', ')}) to ${target}.\n`)
  })
})
