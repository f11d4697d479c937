// A migration that stops half-way (the process killed during `petstore serve`'s start, or a statement that fails)
// leaves nothing of itself behind, on both stores: the next start runs it again from the beginning. On SQLite the
// migrations used to run statement by statement outside any transaction (Kysely's migrator takes SQLite for a
// database without transactional DDL), so a start killed between two statements of one migration left its first
// tables in place, unrecorded, and every later start failed with "table … already exists". Here a view named as
// the third table migration 0011 creates stops it after its first two statements.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { loadConfig } from '../../src/config.js'
import { migrateToLatest, migrations } from '../../src/db/migrate.js'
import { openStore, type Store } from '../../src/db/store.js'
import { migrateUntil } from '../helpers/migrations.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

describe(`a migration stopped half-way, on ${TEST_STORE}`, () => {
  let database: TestDatabase
  let store: Store
  before(async () => {
    database = await createTestDatabase()
    store = openStore(loadConfig({ DATABASE_URL: database.url }))
  })
  after(async () => {
    await store.close()
    await database.drop()
  })

  const tableExists = async (name: string) => {
    const tables = await store.migrations.introspection.getTables()
    return tables.some((table) => table.name === name && !table.isView)
  }

  it('leaves nothing of itself, and runs whole at the next start', async () => {
    await migrateUntil(store.migrations, '0010_event_log')
    await sql`create view category_id_counter as select 1 as next_id`.execute(store.migrations)

    await assert.rejects(migrateToLatest(store.migrations), (error: Error) => {
      assert.match(error.message, /^migration 0011_categories failed: /)
      return true
    })
    assert.equal(await tableExists('categories'), false)

    await sql`drop view category_id_counter`.execute(store.migrations)
    const report = await migrateToLatest(store.migrations)
    assert.deepEqual(
      report.applied,
      Object.keys(migrations).filter((name) => name > '0010_event_log'),
    )
    assert.equal(await tableExists('categories'), true)
    assert.equal(await tableExists('category_id_counter'), true)
  })
})
