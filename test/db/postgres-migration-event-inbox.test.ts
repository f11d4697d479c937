// Migration 0012 on PostgreSQL: events wait for their ids in event_inbox, and `events` holds numbered events only.
// Events numbered under 0010 keep their ids, those still waiting get the next ones, and what the version before
// writes after the migration (an insert into `events` without an id, and its numbering's statement) keeps
// working: its events wait in the inbox and are numbered. The way back (down) keeps every id and every waiting
// event, for 0010's numbering to number.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import type { Writer } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import type { Store } from '../../src/db/store.js'
import { appendEvent } from '../../src/events/event.repository.js'
import { migrateTo, migrateUntil } from '../helpers/migrations.js'
import { appendEventAs0010, numberEvents, numberEventsAs0010, waitingEventNames } from '../helpers/numbering.js'
import { openTestStore } from '../helpers/opened-store.js'

describe('migration 0012 (events wait for their ids in event_inbox) on postgres', () => {
  let store: Store
  let closeStore: () => Promise<void>

  before(async () => {
    ;({ store, close: closeStore } = await openTestStore())
  })
  after(() => closeStore())

  /** The numbered events (under 0010's scheme, waiting ones are in `events` too, without an id). */
  const stored = async () =>
    (
      await sql<{ id: string; data: string }>`select id, data from events where id is not null order by id`.execute(
        store.admin,
      )
    ).rows.map((row) => [Number(row.id), JSON.parse(row.data).name])
  const waiting = () => waitingEventNames(store)
  const numberAsBefore = () => numberEventsAs0010(store)
  const insertAsBefore = (trx: Writer, name: string) =>
    appendEventAs0010(trx, {
      type: 'pet.created',
      occurredAt: '2026-11-01T00:00:00.000Z',
      data: JSON.stringify({ name }),
    })

  it('keeps every id, numbers the waiting events next, and keeps the version before working', async () => {
    assert.equal((await migrateUntil(store.admin, '0011_categories')).error, undefined)
    await store.transaction(async (trx) => {
      await insertAsBefore(trx, 'a')
      await insertAsBefore(trx, 'b')
    })
    assert.equal(await numberAsBefore(), 2)
    await store.transaction((trx) => insertAsBefore(trx, 'c'))

    assert.ok((await migrateToLatest(store.admin)).applied.includes('0012_event_inbox'))
    assert.deepEqual(await stored(), [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ])
    assert.deepEqual(await waiting(), [])

    // The version before, still running: its event waits in the inbox; its numbering finds nothing to do.
    await store.transaction((trx) => insertAsBefore(trx, 'd'))
    assert.deepEqual(await waiting(), ['d'])
    assert.equal(await numberAsBefore(), 0)
    // This version's writer and numbering, in the order the events were written.
    await store.transaction((trx) =>
      appendEvent(trx, { type: 'pet.created', occurredAt: '2026-11-01T00:00:00.000Z', data: '{"name":"e"}' }),
    )
    await numberEvents(store)
    assert.deepEqual((await stored()).slice(3), [
      [4, 'd'],
      [5, 'e'],
    ])
    assert.deepEqual(await waiting(), [])

    // An unknown type is refused at the writer, not left in the inbox for the numbering to fail on.
    await assert.rejects(
      store.transaction((trx) =>
        appendEvent(trx, { type: 'bogus' as 'pet.created', occurredAt: '2026-11-01T00:00:00.000Z', data: '{}' }),
      ),
      /violates check constraint/,
    )
  })

  it('goes back to 0010’s scheme keeping every id and every waiting event, and forward again', async () => {
    await store.transaction(async (trx) => {
      await appendEvent(trx, { type: 'pet.created', occurredAt: '2026-11-01T00:00:00.000Z', data: '{"name":"f"}' })
      await appendEvent(trx, { type: 'pet.created', occurredAt: '2026-11-01T00:00:00.000Z', data: '{"name":"g"}' })
    })
    assert.equal((await migrateTo(store.admin, '0011_categories')).error, undefined)
    assert.deepEqual(await stored(), [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'd'],
      [5, 'e'],
    ])
    assert.equal(await numberAsBefore(), 2)
    await store.transaction((trx) => insertAsBefore(trx, 'h'))
    assert.equal(await numberAsBefore(), 1)
    assert.deepEqual((await stored()).slice(5), [
      [6, 'f'],
      [7, 'g'],
      [8, 'h'],
    ])

    assert.ok((await migrateToLatest(store.admin)).applied.includes('0012_event_inbox'))
    await store.transaction((trx) => insertAsBefore(trx, 'i'))
    await numberEvents(store)
    assert.deepEqual((await stored()).slice(8), [[9, 'i']])
  })
})
