// Migration 0010 on a database whose events were written under 0009 (on PostgreSQL with ids made from the writing
// transaction's id): every event keeps its id, so every position held outside stays valid, and new events take
// consecutive ids after the largest.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { PostgresAdapter } from 'kysely'
import { migrateToLatest } from '../../src/db/migrate.js'
import type { Store } from '../../src/db/store.js'
import { appendEvent, readEventPage } from '../../src/events/event.repository.js'
import { migrateUntil } from '../helpers/migrations.js'
import { appendEventBefore0010, numberEvents } from '../helpers/numbering.js'
import { openTestStore } from '../helpers/opened-store.js'
import { TEST_STORE } from '../helpers/store.js'

describe(`migration 0010 (the event log's own ids) on ${TEST_STORE}`, () => {
  let store: Store
  let closeStore: () => Promise<void>

  before(async () => {
    ;({ store, close: closeStore } = await openTestStore())
  })
  after(() => closeStore())

  const event = (name: string) => ({
    type: 'pet.created' as const,
    occurredAt: '2026-11-01T00:00:00.000Z',
    data: JSON.stringify({ name }),
  })
  const stored = async () =>
    (await store.read.selectFrom('events').select(['id', 'data']).orderBy('id').execute()).map((row) => [
      Number(row.id),
      row.data,
    ])

  it('keeps the ids of the events written before it and continues after the largest', async () => {
    const db = store.admin
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter
    assert.equal((await migrateUntil(db, '0009_webhook_fan_out')).error, undefined)
    // Three events in one transaction, then one in another, as the service wrote them under 0009.
    await store.transaction(async (trx) => {
      for (const [ordinal, name] of ['a', 'b', 'c'].entries()) await appendEventBefore0010(trx, event(name), ordinal)
    })
    await store.transaction((trx) => appendEventBefore0010(trx, event('d')))
    const before = await stored()
    assert.equal(before.length, 4)
    if (postgres) {
      const [first, second, third, fourth] = before.map(([id]) => Number(id))
      assert.ok(first !== undefined && fourth !== undefined && first % 65536 === 0, 'ids made from transaction ids')
      assert.deepEqual([second, third], [first + 1, first + 2])
      assert.ok(fourth >= first + 65536)
    } else
      assert.deepEqual(
        before.map(([id]) => id),
        [1, 2, 3, 4],
      )

    assert.ok((await migrateToLatest(db)).applied.includes('0010_event_log'))
    assert.deepEqual(await stored(), before, 'every event keeps its id and data')

    await store.transaction(async (trx) => {
      await appendEvent(trx, event('e'))
      await appendEvent(trx, event('f'))
    })
    await numberEvents(store)
    const last = Number(before.at(-1)?.[0])
    assert.deepEqual(await stored(), [
      ...before,
      [last + 1, JSON.stringify({ name: 'e' })],
      [last + 2, JSON.stringify({ name: 'f' })],
    ])
    // A reader at the last old id reads exactly the new ones.
    const page = await readEventPage(store.read, { after: last, limit: 10, types: undefined, scanLimit: 10 })
    assert.deepEqual(
      page.rows.map((row) => row.id),
      [last + 1, last + 2],
    )
  })
})
