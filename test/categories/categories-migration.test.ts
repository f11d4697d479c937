// Migration 0011 on a store that already has events: they stay as they were, ids are never handed out again
// (SQLite's events table is made again to change its check, and keeps its AUTOINCREMENT position), the
// category event types are admitted, and any other type is still refused.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { PostgresAdapter, sql } from 'kysely'
import { migrateToLatest } from '../../src/db/migrate.js'
import type { Store } from '../../src/db/store.js'
import { appendEvent, numberEventsCommittedSoFar } from '../../src/events/event.repository.js'
import { migrateUntil } from '../helpers/migrations.js'
import { appendEventAs0010, numberEventsAs0010 } from '../helpers/numbering.js'
import { openTestStore } from '../helpers/opened-store.js'
import { TEST_STORE } from '../helpers/store.js'

describe(`migration 0011 (categories) on ${TEST_STORE}`, () => {
  let store: Store
  let closeStore: () => Promise<void>
  before(async () => {
    ;({ store, close: closeStore } = await openTestStore())
  })
  after(() => closeStore())

  it('keeps the events and their ids, admits the category types and refuses others', async () => {
    const db = store.admin
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter
    assert.equal((await migrateUntil(db, '0010_event_log')).error, undefined)
    // Appended, then numbered as the service numbers them after commit (PostgreSQL; SQLite's have their ids):
    // before the migration as the service did then, after it as it does now.
    const event = (type: 'pet.created' | 'category.created', name: string) => ({
      type,
      occurredAt: '2026-11-25T12:00:00.000Z',
      data: JSON.stringify({ name }),
    })
    for (const name of ['one', 'two', 'three']) {
      await store.transaction((trx) => appendEventAs0010(trx, event('pet.created', name)))
      await numberEventsAs0010(store)
    }
    const events = () => db.selectFrom('events').select(['id', 'type', 'occurred_at', 'data']).orderBy('id').execute()
    const before = await events()
    assert.equal(before.length, 3)
    const newest = Number(before.at(-1)?.id)
    // The newest event deleted: its id must not come back. SQLite keeps its AUTOINCREMENT position (which the
    // rebuilt table must carry over); PostgreSQL numbers above the largest id and the retention purge's mark,
    // which the purge moves as it deletes.
    if (postgres) await db.updateTable('event_retention').set({ purged_through: newest }).execute()
    await db.deleteFrom('events').where('id', '=', newest).execute()

    assert.ok((await migrateToLatest(db)).applied.includes('0011_categories'))
    assert.deepEqual(await events(), before.slice(0, 2))
    await store.transaction((trx) => appendEvent(trx, event('category.created', 'four')))
    await store.transaction((trx) => numberEventsCommittedSoFar(trx))
    const [, , added] = await events()
    assert.equal(added?.type, 'category.created')
    assert.ok(Number(added?.id) > newest, `${added?.id} > ${newest}`)
    await assert.rejects(
      sql`insert into events (id, type, occurred_at, data) values (${newest + 100}, 'bogus', 'x', '{}')`.execute(db),
      /check/i,
    )
  })
})
