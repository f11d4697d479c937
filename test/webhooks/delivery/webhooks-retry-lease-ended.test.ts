// The retry operation on the repository, for a delivery whose attempt a dead instance left under its lease
// (webhooks-retry-after-crash.test.ts runs it through the API with a killed instance). The lease has ended, so the
// delivery is due already: the retry must leave its due time alone, since the claim that takes it dates the attempt
// it logs as interrupted from there (the lease's end, less a lease). A retry long after the lease ended used to
// make the logged attempt start then, and last as long as the time since.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { migrateToLatest } from '../../../src/db/migrate.js'
import type { Store } from '../../../src/db/store.js'
import { claimDueDeliveries } from '../../../src/webhooks/delivery/delivery-claim.repository.js'
import { scheduleDeliveryNow } from '../../../src/webhooks/delivery/delivery.repository.js'
import { openTestStore } from '../../helpers/opened-store.js'
import { TEST_STORE } from '../../helpers/store.js'
import { insertEndpointRow } from '../../helpers/webhooks.js'

const LEASE_MS = 60_000
/** When the dead instance took the delivery and started its attempt (epoch milliseconds). */
const TAKEN = 1_900_000_000_000
const HOUR = 3_600_000
const CREATED_AT = new Date(TAKEN).toISOString()

describe(`retrying a delivery whose lease has ended, on ${TEST_STORE}`, () => {
  let store: Store
  let closeStore: () => Promise<void>
  let endpointId: number

  before(async () => {
    ;({ store, close: closeStore } = await openTestStore())
    await migrateToLatest(store.admin)
    endpointId = await insertEndpointRow(store.admin, { created_at: CREATED_AT })
    // The deliveries' events, still kept: a retry of a delivery whose event is gone is refused.
    await store.admin
      .insertInto('events')
      .values([1, 2].map((id) => ({ id, type: 'pet.created' as const, occurred_at: CREATED_AT, data: '{}' })))
      .execute()
  })
  after(() => closeStore())

  const attemptsOf = async (id: number) =>
    (
      await store.read
        .selectFrom('webhook_attempts')
        .select(['attempt', 'started_at', 'duration_ms', 'outcome'])
        .where('delivery_id', '=', id)
        .orderBy('attempt')
        .execute()
    ).map((row) => ({ ...row, attempt: Number(row.attempt), duration_ms: Number(row.duration_ms) }))

  it('keeps its due time, the lease end, so that the attempt left behind is logged from when it began', async () => {
    const delivery = await store.admin
      .insertInto('webhook_deliveries')
      .values({
        endpoint_id: endpointId,
        event_id: 1,
        status: 'pending',
        attempts: 1,
        due_at: TAKEN + LEASE_MS,
        lease_token: 'lease-of-a-dead-instance',
        created_at: CREATED_AT,
        finished_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const id = Number(delivery.id)

    const retried = await store.transaction((trx) => scheduleDeliveryNow(trx, endpointId, id, TAKEN + HOUR))
    assert.equal(Number(retried?.due_at), TAKEN + LEASE_MS)
    assert.equal(retried?.status, 'pending')

    const claimed = await store.transaction((trx) =>
      claimDueDeliveries(trx, {
        now: TAKEN + 2 * HOUR,
        total: 10,
        perEndpoint: 10,
        notFree: new Map(),
        leaseMs: LEASE_MS,
        leaseToken: 'lease-of-this-instance',
      }),
    )
    assert.deepEqual(
      claimed.map((taken) => ({ id: taken.id, attempt: taken.attempt })),
      [{ id, attempt: 2 }],
    )
    assert.deepEqual(await attemptsOf(id), [
      { attempt: 1, started_at: CREATED_AT, duration_ms: 2 * HOUR, outcome: 'interrupted' },
    ])
  })

  it('makes a delivery without a lease due at the retry', async () => {
    const delivery = await store.admin
      .insertInto('webhook_deliveries')
      .values({
        endpoint_id: endpointId,
        event_id: 2,
        status: 'failed',
        attempts: 3,
        due_at: null,
        lease_token: null,
        created_at: CREATED_AT,
        finished_at: CREATED_AT,
      })
      .returning('id')
      .executeTakeFirstOrThrow()

    const retried = await store.transaction((trx) =>
      scheduleDeliveryNow(trx, endpointId, Number(delivery.id), TAKEN + HOUR),
    )
    assert.deepEqual(
      retried && { status: retried.status, due_at: Number(retried.due_at), finished_at: retried.finished_at },
      { status: 'pending', due_at: TAKEN + HOUR, finished_at: null },
    )
  })
})
