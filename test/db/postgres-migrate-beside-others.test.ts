// Migrations, and the check every command makes that the schema is migrated, look at their own schema only.
// Kysely's own introspector read every column of every table in the database, opening each table
// (pg_get_serial_sequence): a migration waited for any lock on any table of the server, and failed (42703 "column
// … of relation … does not exist", 3F000 "schema … does not exist") when another client changed or dropped that
// table or schema meanwhile. Here another client holds a table of another schema locked, with a column dropped and
// not committed yet: neither the migration nor the check waits for it or fails after it. Both run on the store's
// migration connection, as serve, migrate and every other command run them.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { migrateToLatest, migrations, refuseUnmigrated } from '../../src/db/migrate.js'
import { openTestStore, type OpenedStore } from '../helpers/opened-store.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

describe('PostgreSQL migrations beside other schemas', () => {
  let opened: OpenedStore
  let other: TestDatabase
  let otherClient: pg.Client

  before(async () => {
    opened = await openTestStore()
    other = await createTestDatabase('postgres')
    otherClient = new pg.Client({ connectionString: other.url })
    await otherClient.connect()
    await otherClient.query('create table neighbour (id bigserial primary key, note text)')
  })
  after(async () => {
    await otherClient?.end()
    await other?.drop()
    await opened?.close()
  })

  it('migrates while another client holds a table in another schema locked; lists only its own tables', async () => {
    await otherClient.query('begin')
    await otherClient.query('alter table neighbour drop column note')
    let migrated: Awaited<ReturnType<typeof migrateToLatest>> | undefined
    try {
      // Bounded: the earlier introspector waited here until the other client ended its transaction.
      const timeout = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 10_000).unref())
      const outcome = await Promise.race([migrateToLatest(opened.store.migrations), timeout])
      assert.notEqual(outcome, 'waited', 'the migration waited for a lock in another schema')
      migrated = outcome as Awaited<ReturnType<typeof migrateToLatest>>
      const checked = await Promise.race([refuseUnmigrated(opened.store.migrations, 'database'), timeout])
      assert.deepEqual(checked, { applied: [], newer: [] }, 'the check waited for a lock in another schema')
    } finally {
      await otherClient.query('commit')
    }
    assert.deepEqual(migrated.applied, Object.keys(migrations))

    const tables = await opened.store.migrations.introspection.getTables()
    const schemas = new Set(tables.map((table) => table.schema))
    assert.equal(schemas.size, 1)
    assert.ok(!tables.some((table) => table.name === 'neighbour'))
    assert.ok(tables.some((table) => table.name === 'events' && !table.isView))
    assert.ok(tables.some((table) => table.name === 'kysely_migration'))
    assert.deepEqual(await migrateToLatest(opened.store.migrations), { applied: [], newer: [] })
  })
})
