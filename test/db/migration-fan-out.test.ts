// Migration 0009 on a database that has used webhooks under 0008, whose trigger made the deliveries: the fan-out
// starts after the events the trigger saw (none is delivered twice, none skipped), the endpoints keep receiving,
// and the writers' inserts no longer make deliveries.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { migrateUntil } from '../helpers/migrations.js'
import type { Store } from '../../src/db/store.js'
import { fanOutEvents } from '../../src/webhooks/delivery/fan-out.repository.js'
import { appendEventBefore0010 } from '../helpers/numbering.js'
import { openTestStore } from '../helpers/opened-store.js'
import { TEST_STORE } from '../helpers/store.js'

describe(`migration 0009 (the fan-out leaves the writers) on ${TEST_STORE}`, () => {
  let store: Store
  let closeStore: () => Promise<void>

  before(async () => {
    ;({ store, close: closeStore } = await openTestStore())
  })
  after(() => closeStore())

  it('starts the fan-out after the events the trigger saw, and the trigger makes no more deliveries', async () => {
    const db = store.admin
    // 0008, the migration whose trigger made the deliveries.
    assert.equal((await migrateUntil(db, '0008_webhooks')).error, undefined)
    await sql`insert into webhook_endpoints (url, types, description, status, secret, created_at, updated_at)
      values ('https://receiver.example/hooks', null, null, 'enabled', 'sealed', '2026-11-01T00:00:00.000Z', \
'2026-11-01T00:00:00.000Z')`.execute(db)
    const event = (name: string) =>
      store.transaction((trx) =>
        appendEventBefore0010(trx, {
          type: 'pet.created',
          occurredAt: new Date().toISOString(),
          data: JSON.stringify({ name }),
        }),
      )
    await event('before 1')
    await event('before 2')
    const count = async (table: 'webhook_deliveries' | 'events') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('count'))
            .executeTakeFirstOrThrow()
        ).count,
      )
    assert.equal(await count('webhook_deliveries'), 2, 'the trigger of 0008 made them')

    const { results } = await migrateUntil(db, '0009_webhook_fan_out')
    assert.deepEqual(
      results?.map((result) => result.migrationName),
      ['0009_webhook_fan_out'],
    )
    const newest = Number(
      (
        await db
          .selectFrom('events')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirstOrThrow()
      ).id,
    )
    const { position } = await db.selectFrom('webhook_fan_out').select('position').executeTakeFirstOrThrow()
    const { receives_after } = await db
      .selectFrom('webhook_endpoints')
      .select('receives_after')
      .executeTakeFirstOrThrow()
    // The newest readable event: all of them here, unless a transaction of another test was open on the server
    // (then the events above it are fanned out again, delivered twice but never lost).
    assert.ok(Number(position) <= newest)
    assert.equal(Number(receives_after), Number(position))

    await event('after')
    assert.equal(await count('webhook_deliveries'), 2, 'an insert into events makes no delivery any more')
    // The fan-out makes the later event's delivery (on PostgreSQL once it is readable), and every event has one.
    const eventIds = async () =>
      (await db.selectFrom('events').select('id').orderBy('id').execute()).map((row) => Number(row.id))
    const delivered = async () =>
      (await db.selectFrom('webhook_deliveries').select('event_id').execute()).map((row) => Number(row.event_id))
    const all = await eventIds()
    for (let looks = 0; ; looks++) {
      const ids = await delivered()
      if (all.every((id) => ids.includes(id))) break
      assert.ok(looks < 200, 'the later event was never fanned out')
      await store.bookkeeping.transaction((trx) => fanOutEvents(trx, 100))
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    const ids = await delivered()
    assert.equal(ids.filter((id) => id === all.at(-1)).length, 1, 'the later event has exactly one delivery')
  })
})
