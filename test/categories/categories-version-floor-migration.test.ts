// Migration 0014 on a store whose categories were written before it: the versions of categories deleted then
// were not kept, so the floor new categories start above is set to a bound on every version ever reached (the
// largest event id, kept or purged, plus on PostgreSQL the events still waiting for theirs); 0 when no category
// was ever created. Down takes the column away again.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { PostgresAdapter, sql } from 'kysely'
import { migrateToLatest } from '../../src/db/migrate.js'
import type { Store } from '../../src/db/store.js'
import { migrateTo, migrateUntil } from '../helpers/migrations.js'
import { openTestStore } from '../helpers/opened-store.js'
import { TEST_STORE } from '../helpers/store.js'

const BEFORE = '0013_data_version_free_shard'

describe(`migration 0014 (category version floor) on ${TEST_STORE}`, () => {
  let store: Store
  let closeStore: () => Promise<void>
  before(async () => {
    ;({ store, close: closeStore } = await openTestStore())
  })
  after(() => closeStore())

  const floor = async () => {
    const { rows } = await sql<{ floor: number }>`select version_floor as floor from category_id_counter`.execute(
      store.admin,
    )
    return rows.map((row) => Number(row.floor))
  }

  it('sets the floor above every version a category can have reached, and to 0 when none was created', async () => {
    const db = store.admin
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter
    assert.equal((await migrateUntil(db, BEFORE)).error, undefined)
    await sql`insert into categories (id, name, name_key, version) values (3, 'Dogs', 'dogs', 2)`.execute(db)
    await sql`update category_id_counter set last_id = 9`.execute(db)
    await sql`insert into events (id, type, occurred_at, data)
      values (57, 'category.created', '2026-11-25T12:00:00.000Z', '{}')`.execute(db)
    await sql`update event_retention set purged_through = 80`.execute(db)
    // PostgreSQL: an event without an id waits in event_inbox for its number.
    if (postgres)
      await sql`insert into events (type, occurred_at, data)
        values ('category.updated', '2026-11-25T12:00:01.000Z', '{}')`.execute(db)

    assert.ok((await migrateToLatest(db)).applied.includes('0014_category_version_floor'))
    assert.deepEqual(await floor(), [postgres ? 81 : 80])

    assert.equal((await migrateTo(db, BEFORE)).error, undefined)
    await assert.rejects(floor(), /version_floor/)
    await sql`delete from categories`.execute(db)
    await sql`update category_id_counter set last_id = 0`.execute(db)
    assert.ok((await migrateToLatest(db)).applied.includes('0014_category_version_floor'))
    assert.deepEqual(await floor(), [0])
  })
})
