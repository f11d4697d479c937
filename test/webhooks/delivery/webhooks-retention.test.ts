// The event retention purge beside pending webhook deliveries: a delivery waiting for its retry, or for its
// endpoint to be enabled again, keeps its event however old it is, so that its next attempt sends it (it used to
// end `event_gone`, its retries lost). The purge still deletes the old events below it, and the purged range
// (event_retention) says so.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { purgeOldEvents } from '../../../src/events/event-purge.js'
import { webhookEventsNeededAfter } from '../../../src/webhooks/delivery/needed-events.repository.js'
import { readWholeFeed, type FeedEvent } from '../../helpers/events.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { WebhookReceiver } from '../../helpers/webhook-receiver.js'
import {
  deliveriesWhen,
  LOOPBACK_WEBHOOKS,
  QUICK_WEBHOOKS,
  registerWebhook,
  type Delivery,
} from '../../helpers/webhooks.js'

/**
 * Far beyond the test: the purge runs between the first attempt and the retry however slow the machine, and the
 * test asks for the retry itself (POST …/retry) once it has purged.
 */
const RETRY = '1h'

describe(`the event retention purge beside pending webhook deliveries, on ${TEST_STORE}`, () => {
  let server: TestServer
  const receivers: WebhookReceiver[] = []

  before(async () => {
    server = await startTestServer({
      env: { ...LOOPBACK_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE: RETRY },
      tuning: { ...QUICK_WEBHOOKS, webhookAttemptTimeoutMs: 2000, webhookLeaseMs: 5000 },
    })
  })
  after(async () => {
    await server.close()
    await Promise.all(receivers.map((receiver) => receiver.close()))
  })

  /** A receiver that answers 500 to the first request and 204 to the others. */
  const failingOnce = async () => {
    const receiver = await WebhookReceiver.start({
      answer: ({ number }) => (number === 1 ? { status: 500, body: 'not now' } : { status: 204 }),
    })
    receivers.push(receiver)
    return receiver
  }
  const createPet = async (name: string) => {
    const response = await server.request('/v1/pets', { json: { name, categoryId: 1 } })
    assert.equal(response.status, 201)
    await response.arrayBuffer()
  }
  /** Every event kept, once the feed shows `count` of them (on PostgreSQL an event is listed once numbered). */
  const eventsWhen = async (count: number): Promise<FeedEvent[]> => {
    for (;;) {
      const events = await readWholeFeed((path) => server.request(path))
      if (events.length >= count) return events
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
  const purgedThrough = async () =>
    Number(
      (await server.store.read.selectFrom('event_retention').select('purged_through').executeTakeFirstOrThrow())
        .purged_through,
    )
  /** Purges as if two days had passed with one day's retention: every event is old. */
  const purgeEverythingOld = () =>
    purgeOldEvents(
      { data: server.store, retentionDays: 1, neededAfter: webhookEventsNeededAfter },
      new Date(Date.now() + 2 * 86_400_000),
    )
  /** Makes a delivery due now, as an operator would instead of waiting for its scheduled retry. */
  const retryNow = async (webhookId: number, deliveryId: number) => {
    const response = await server.request(`/v1/webhooks/${webhookId}/deliveries/${deliveryId}/retry`, {
      method: 'POST',
    })
    assert.equal(response.status, 202)
    await response.arrayBuffer()
  }
  /**
   * The first attempt logged and the retry scheduled. On PostgreSQL a delivery and its attempts are read by two
   * statements, so the attempt can be seen before the delivery's lease is released (no next attempt shown yet).
   */
  const retryScheduled = ([first]: Delivery[]) => first?.attempts.length === 1 && first.nextAttemptAt !== null
  const attemptsOf = (delivery: Delivery | undefined) =>
    delivery?.attempts.map(({ attempt, outcome, responseStatus }) => ({ attempt, outcome, responseStatus }))
  const FAILED_THEN_SUCCEEDED = [
    { attempt: 1, outcome: 'unexpected_status', responseStatus: 500 },
    { attempt: 2, outcome: 'succeeded', responseStatus: 204 },
  ]

  it('keeps the event of a delivery whose retry is scheduled; the retry sends it', async () => {
    await createPet('Old news')
    const receiver = await failingOnce()
    const webhook = await registerWebhook(server, receiver, { types: ['pet.created'] })
    await createPet('Retried')
    const events = await eventsWhen(2)
    const retried = events.at(-1)
    assert.ok(retried)
    const [pending] = await deliveriesWhen(server, webhook.id, retryScheduled)
    assert.ok(pending)
    assert.equal(pending.status, 'pending')
    assert.notEqual(pending.nextAttemptAt, null)

    // The fan-out has reached the event: only the pending delivery needs it now.
    assert.equal(await webhookEventsNeededAfter(server.store.read), retried.id - 1)
    assert.equal(await purgeEverythingOld(), events.length - 1)
    assert.equal(await purgedThrough(), retried.id - 1)
    assert.deepEqual(
      (await eventsWhen(1)).map((event) => event.id),
      [retried.id],
    )

    await retryNow(webhook.id, pending.id)
    const [delivered] = await deliveriesWhen(server, webhook.id, ([first]) => first?.status !== 'pending')
    assert.deepEqual([delivered?.status, delivered?.eventId], ['succeeded', retried.id])
    assert.deepEqual(attemptsOf(delivered), FAILED_THEN_SUCCEEDED)
    assert.deepEqual(
      receiver.received.map((request) => request.body),
      [JSON.stringify(retried), JSON.stringify(retried)],
    )
  })

  it("keeps a disabled endpoint's pending delivery's event until it is enabled again, then delivers it", async () => {
    const receiver = await failingOnce()
    const webhook = await registerWebhook(server, receiver, { types: ['pet.created'] })
    const patch = async (status: 'enabled' | 'disabled') => {
      const response = await server.request(`/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: { status } })
      assert.equal(response.status, 200)
      await response.arrayBuffer()
    }
    await createPet('Paused')
    const [pending] = await deliveriesWhen(server, webhook.id, retryScheduled)
    assert.ok(pending)
    assert.notEqual(pending.nextAttemptAt, null)
    await patch('disabled')
    // Later events, none of them for this endpoint now: every event but the pending delivery's is old and unneeded.
    await createPet('While disabled')
    const events = await eventsWhen(3)
    const before = await purgedThrough()
    assert.equal(await purgeEverythingOld(), events.filter((event) => event.id < pending.eventId).length)
    // The purge stops below the pending delivery's event: a purged range is always "every id up to N".
    assert.equal(await purgedThrough(), pending.eventId - 1)
    assert.ok(pending.eventId - 1 > before)
    assert.deepEqual(
      (await eventsWhen(2)).map((event) => event.id),
      events.filter((event) => event.id >= pending.eventId).map((event) => event.id),
    )

    await patch('enabled')
    await retryNow(webhook.id, pending.id)
    const [delivered] = await deliveriesWhen(server, webhook.id, ([first]) => first?.status !== 'pending')
    assert.deepEqual([delivered?.status, delivered?.eventId], ['succeeded', pending.eventId])
    assert.deepEqual(attemptsOf(delivered), FAILED_THEN_SUCCEEDED)
    assert.equal(receiver.received.at(-1)?.webhookId, `evt_${pending.eventId}`)
  })

  it('refuses to send again a finished delivery whose event was purged, and leaves it as it was', async () => {
    const receiver = await WebhookReceiver.start({ answer: () => ({ status: 204 }) })
    receivers.push(receiver)
    const webhook = await registerWebhook(server, receiver, { types: ['pet.created'] })
    await createPet('Delivered long ago')
    const [delivered] = await deliveriesWhen(server, webhook.id, ([first]) => first?.status === 'succeeded')
    assert.ok(delivered)
    await purgeEverythingOld()
    assert.ok((await purgedThrough()) >= delivered.eventId)

    const path = `/v1/webhooks/${webhook.id}/deliveries/${delivered.id}/retry`
    const refused = await server.request(path, { method: 'POST' })
    assert.equal(refused.status, 409)
    assert.deepEqual(await refused.json(), {
      code: 'conflict',
      message:
        `The event of delivery ${delivered.id} is no longer kept (EVENT_RETENTION_DAYS): it cannot be sent again. ` +
        'Nothing was changed.',
      status: 409,
    })
    const [unchanged] = await deliveriesWhen(server, webhook.id, () => true)
    assert.deepEqual(unchanged, delivered)
    assert.equal(receiver.received.length, 1)
  })
})
