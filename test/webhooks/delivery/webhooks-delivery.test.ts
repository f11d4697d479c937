// Delivery on the store of the pass, to real receivers on loopback that verify every request with the Standard
// Webhooks library: every subscribed event arrives, signed, as the feed's exact bytes, under a webhook-id that
// stays the same across retries; failures are retried on the schedule and logged attempt by attempt; rotation
// signs with both secrets during the overlap only; a receiver that hangs holds only its own share of places.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
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

const ATTEMPT_TIMEOUT_MS = 2000
const SHORT_WAITS = { ...LOOPBACK_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms' }
const SHORT_ATTEMPTS = { ...QUICK_WEBHOOKS, webhookAttemptTimeoutMs: ATTEMPT_TIMEOUT_MS, webhookLeaseMs: 5000 }

async function createPet(server: TestServer, name: string): Promise<{ id: number }> {
  const response = await server.request('/v1/pets', { json: { name, categoryId: 1 } })
  assert.equal(response.status, 201)
  return response.json() as Promise<{ id: number }>
}

/** What each attempt of `delivery` came to, without its start and duration (which vary from run to run). */
function attemptResults(delivery: Delivery) {
  return delivery.attempts.map(({ attempt, outcome, responseStatus, error, responseBody }) => ({
    attempt,
    outcome,
    responseStatus,
    error,
    responseBody,
  }))
}

/** The newest event id now: what a test's own changes come after. */
async function newestEventId(server: TestServer): Promise<number> {
  return (await readWholeFeed((path) => server.request(path))).at(-1)?.id ?? 0
}

describe(`webhook delivery on ${TEST_STORE}`, () => {
  let server: TestServer
  const receivers: WebhookReceiver[] = []
  const receiver = async (options?: Parameters<typeof WebhookReceiver.start>[0]) => {
    const started = await WebhookReceiver.start(options)
    receivers.push(started)
    return started
  }

  before(async () => {
    server = await startTestServer({ env: SHORT_WAITS, tuning: SHORT_ATTEMPTS })
  })
  after(async () => {
    await server.close()
    await Promise.all(receivers.map((started) => started.close()))
  })

  it("delivers each of 500 changes' events to each subscribed receiver, signed, as the feed's bytes, \
under evt_<id>", async () => {
    const everything = await receiver()
    const petsCreated = await receiver()
    const ordersPlaced = await receiver()
    const disabled = await receiver()
    const all = await registerWebhook(server, everything, {})
    await registerWebhook(server, petsCreated, { types: ['pet.created'] })
    await registerWebhook(server, ordersPlaced, { types: ['order.placed'] })
    const paused = await registerWebhook(server, disabled, {})
    assert.equal(
      (await server.request(`/v1/webhooks/${paused.id}`, { method: 'PATCH', json: { status: 'disabled' } })).status,
      200,
    )
    const start = await newestEventId(server)

    // 250 pets created and 250 of them ordered: 500 changes, 750 events, from 10 clients at once.
    await Promise.all(
      Array.from({ length: 10 }, async (_, client) => {
        for (let index = 0; index < 25; index++) {
          const pet = await createPet(server, `c${client}-${index}`)
          const order = await server.request('/v1/store/orders', { json: { petId: pet.id } })
          assert.equal(order.status, 201)
        }
      }),
    )
    // On PostgreSQL the feed shows an event once every transaction older than it has ended (the deliverer's own
    // included), so it is read until it has caught up.
    let events: FeedEvent[] = []
    while (events.length < 750) events = await readWholeFeed((path) => server.request(path), start)
    assert.equal(events.length, 750)
    const expected = (filter: (event: FeedEvent) => boolean) =>
      new Set(events.filter(filter).map((event) => `evt_${event.id}`))
    const byId = new Map(events.map((event) => [`evt_${event.id}`, event]))
    const cases: [WebhookReceiver, Set<string>][] = [
      [everything, expected(() => true)],
      [petsCreated, expected((event) => event.type === 'pet.created')],
      [ordersPlaced, expected((event) => event.type === 'order.placed')],
    ]
    for (const [target, ids] of cases) {
      await target.until(() => {
        const received = target.ids()
        return [...ids].every((id) => received.has(id))
      })
      assert.deepEqual(target.ids(), ids)
      for (const delivery of target.received) {
        assert.deepEqual(delivery.verifiedWith, ['current'], delivery.webhookId)
        // The same bytes as the feed: its JSON, re-serialised, is what the feed sent.
        assert.equal(delivery.body, JSON.stringify(byId.get(delivery.webhookId)))
        assert.match(delivery.timestamp, /^\d{10}$/)
        assert.equal(delivery.signatures.length, 1)
      }
    }
    assert.equal(disabled.connections, 0)
    const log = await deliveriesWhen(
      server,
      all.id,
      (deliveries) => deliveries.length === 750 && deliveries.every((delivery) => delivery.status === 'succeeded'),
    )
    // Newest delivery first; on PostgreSQL deliveries are numbered in the order their events were written, which
    // is not quite the events' order (ids follow transaction ids there), so the events are compared as a set.
    assert.deepEqual(
      log.map((delivery) => delivery.eventId).sort((a, b) => a - b),
      events.map((event) => event.id),
    )
    const deliveryIds = log.map((delivery) => delivery.id)
    assert.deepEqual(
      deliveryIds,
      [...deliveryIds].sort((a, b) => b - a),
    )
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text()
    assert.match(metrics, /^petstore_webhook_attempts_total\{outcome="succeeded"\} \d{4}$/m)
    assert.match(metrics, /^petstore_webhook_deliveries_finished_total\{status="succeeded"\} \d{4}$/m)
    assert.match(metrics, /^petstore_webhook_oldest_due_delivery_age_seconds \d/m)
  })

  it('retries a receiver that answers 500, then times out, and logs the three attempts; the webhook-id \
never changes', async () => {
    const flaky = await receiver({
      answer: ({ number }) =>
        number === 1
          ? { status: 500, body: 'x'.repeat(10_000) }
          : number === 2
            ? 'hang'
            : { status: 200, body: 'thanks' },
    })
    const webhook = await registerWebhook(server, flaky, { types: ['pet.created'] })
    await createPet(server, 'Flaky')
    const [delivery] = await deliveriesWhen(server, webhook.id, (deliveries) => deliveries[0]?.status === 'succeeded')
    assert.ok(delivery)
    assert.equal(flaky.received.length, 3)
    assert.deepEqual(new Set(flaky.received.map((received) => received.webhookId)), new Set([delivery.webhookId]))
    assert.equal(delivery.webhookId, `evt_${delivery.eventId}`)
    assert.deepEqual(
      flaky.received.map((received) => received.verifiedWith),
      [['current'], ['current'], ['current']],
    )
    // The hanging request was given up by the sender, not answered.
    assert.deepEqual(
      flaky.abandoned.map((received) => received.number),
      [2],
    )
    assert.deepEqual(attemptResults(delivery), [
      {
        attempt: 1,
        outcome: 'unexpected_status',
        responseStatus: 500,
        error: 'the receiver answered 500; only 2xx is success',
        responseBody: 'x'.repeat(4096),
      },
      {
        attempt: 2,
        outcome: 'timed_out',
        responseStatus: null,
        // A time-out throttles the endpoint (half its places) until it answers again, and says so.
        error:
          `no answer within ${ATTEMPT_TIMEOUT_MS} ms; the endpoint's attempts time out, so this instance gives ` +
          'it 4 of its 8 delivery places until it answers again',
        responseBody: null,
      },
      { attempt: 3, outcome: 'succeeded', responseStatus: 200, error: null, responseBody: 'thanks' },
    ])
    assert.ok((delivery.attempts[1]?.durationMs ?? 0) >= ATTEMPT_TIMEOUT_MS - 10)
    assert.equal(delivery.nextAttemptAt, null)
    assert.ok(delivery.finishedAt !== null)
  })

  it('takes the status of an answer whose body never ends: a 500 is retried, a 200 is success, neither \
times out', async () => {
    const unfinished = await receiver({
      answer: ({ number }) => ({
        status: number === 1 ? 500 : 200,
        body: number === 1 ? 'oops' : 'x',
        unfinished: true,
      }),
    })
    const webhook = await registerWebhook(server, unfinished, { types: ['pet.created'] })
    await createPet(server, 'Unfinished')
    // Until it has ended, either way (on PostgreSQL it exists once its event is numbered and fanned out).
    const [delivery] = await deliveriesWhen(
      server,
      webhook.id,
      ([first]) => first !== undefined && first.status !== 'pending',
    )
    assert.equal(delivery?.status, 'succeeded')
    assert.deepEqual(attemptResults(delivery), [
      {
        attempt: 1,
        outcome: 'unexpected_status',
        responseStatus: 500,
        error: 'the receiver answered 500; only 2xx is success',
        responseBody: 'oops',
      },
      { attempt: 2, outcome: 'succeeded', responseStatus: 200, error: null, responseBody: 'x' },
    ])
    // Decided well before the attempt time-out; the connections are closed rather than waited on.
    for (const attempt of delivery.attempts)
      assert.ok(attempt.durationMs < ATTEMPT_TIMEOUT_MS, String(attempt.durationMs))
    await unfinished.until(() => unfinished.open === 0)
    assert.equal(unfinished.received.length, 2)
  })

  it('logs a response body holding NUL with U+FFFD in its place, and records the outcomes beside it', async () => {
    const binary = await receiver({
      answer: ({ number }) => ({ status: number === 1 ? 500 : 200, body: number === 1 ? 'bad\u0000body' : 'ok\u0000' }),
    })
    const healthy = await receiver()
    const webhook = await registerWebhook(server, binary, { types: ['pet.created'] })
    const other = await registerWebhook(server, healthy, { types: ['pet.created'] })
    await createPet(server, 'Binary')
    const [delivery] = await deliveriesWhen(server, webhook.id, ([first]) => first?.status === 'succeeded')
    assert.ok(delivery)
    assert.deepEqual(attemptResults(delivery), [
      {
        attempt: 1,
        outcome: 'unexpected_status',
        responseStatus: 500,
        error: 'the receiver answered 500; only 2xx is success',
        responseBody: 'bad\uFFFDbody',
      },
      { attempt: 2, outcome: 'succeeded', responseStatus: 200, error: null, responseBody: 'ok\uFFFD' },
    ])
    const [beside] = await deliveriesWhen(server, other.id, ([first]) => first?.status === 'succeeded')
    assert.ok(beside)
    assert.deepEqual(attemptResults(beside), [
      { attempt: 1, outcome: 'succeeded', responseStatus: 204, error: null, responseBody: null },
    ])
  })

  it('marks a delivery failed once the schedule is spent; a manual retry sends it again under the same \
webhook-id', async () => {
    let answer = 503
    const down = await receiver({ answer: () => ({ status: answer }) })
    const webhook = await registerWebhook(server, down, { types: ['pet.created'] })
    await createPet(server, 'Unlucky')
    const [failed] = await deliveriesWhen(server, webhook.id, (deliveries) => deliveries[0]?.status === 'failed')
    assert.ok(failed)
    assert.deepEqual(
      failed.attempts.map((attempt) => [attempt.attempt, attempt.outcome, attempt.responseStatus]),
      [
        [1, 'unexpected_status', 503],
        [2, 'unexpected_status', 503],
        [3, 'unexpected_status', 503],
        [4, 'unexpected_status', 503],
      ],
    )
    assert.equal(failed.nextAttemptAt, null)
    assert.ok(failed.finishedAt !== null)

    answer = 204
    const retried = await server.request(`/v1/webhooks/${webhook.id}/deliveries/${failed.id}/retry`, { method: 'POST' })
    assert.equal(retried.status, 202)
    const pending = (await retried.json()) as Delivery
    assert.deepEqual(
      { ...pending, nextAttemptAt: null },
      { ...failed, status: 'pending', finishedAt: null, nextAttemptAt: null },
    )
    const [succeeded] = await deliveriesWhen(server, webhook.id, (deliveries) => deliveries[0]?.status === 'succeeded')
    assert.deepEqual(
      succeeded?.attempts.map((attempt) => [attempt.attempt, attempt.outcome, attempt.responseStatus]).at(-1),
      [5, 'succeeded', 204],
    )
    assert.equal(down.received.length, 5)
    assert.deepEqual(down.ids(), new Set([failed.webhookId]))
  })

  it('refuses to retry a delivery while one of its attempts is in progress (409)', async () => {
    const stuck = await receiver({ answer: () => 'hang' })
    const webhook = await registerWebhook(server, stuck, { types: ['pet.created'] })
    await createPet(server, 'Stuck')
    await stuck.until(() => stuck.open === 1)
    const [delivery] = await deliveriesWhen(server, webhook.id, (deliveries) => deliveries.length === 1)
    assert.ok(delivery)
    assert.equal(delivery.status, 'pending')
    assert.equal(delivery.nextAttemptAt, null)
    const response = await server.request(`/v1/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`, {
      method: 'POST',
    })
    assert.equal(response.status, 409)
    assert.deepEqual(await response.json(), {
      code: 'conflict',
      message: `An attempt of delivery ${delivery.id} is in progress; retry once it has ended.`,
      status: 409,
    })
    // Out of the way of the next tests.
    assert.equal((await server.request(`/v1/webhooks/${webhook.id}`, { method: 'DELETE' })).status, 204)
  })

  it('signs with both secrets while a rotation overlaps, each verifying on its own', async () => {
    const rotating = await receiver()
    const webhook = await registerWebhook(server, rotating, { types: ['pet.created'] })
    const rotated = await server.request(`/v1/webhooks/${webhook.id}/rotate-secret`, { method: 'POST' })
    assert.equal(rotated.status, 200)
    rotating.secrets.set('previous', webhook.secret)
    rotating.secrets.set('current', ((await rotated.json()) as { secret: string }).secret)
    await createPet(server, 'Rotated')
    await rotating.until(() => rotating.received.length === 1)
    const [delivery] = rotating.received
    assert.equal(delivery?.signatures.length, 2)
    assert.deepEqual(delivery?.verifiedWith, ['current', 'previous'])
  })
})

describe(`webhook secret rotation after its overlap on ${TEST_STORE}`, () => {
  let server: TestServer
  let rotating: WebhookReceiver

  before(async () => {
    server = await startTestServer({ env: SHORT_WAITS, tuning: { ...SHORT_ATTEMPTS, webhookSecretOverlapSeconds: 1 } })
    rotating = await WebhookReceiver.start()
  })
  after(async () => {
    await server.close()
    await rotating.close()
  })

  it('signs with the new secret only, once the overlap has ended', async () => {
    const webhook = await registerWebhook(server, rotating, { types: ['pet.created'] })
    const response = await server.request(`/v1/webhooks/${webhook.id}/rotate-secret`, { method: 'POST' })
    const rotated = (await response.json()) as { secret: string; previousSecretExpiresAt: string }
    rotating.secrets.set('previous', webhook.secret)
    rotating.secrets.set('current', rotated.secret)
    // Waits for the overlap's end as stated by the service, however slowly the test got here.
    while (Date.now() <= Date.parse(rotated.previousSecretExpiresAt))
      await new Promise((resolve) => setTimeout(resolve, 50))
    await createPet(server, 'After')
    await rotating.until(() => rotating.received.length === 1)
    const [delivery] = rotating.received
    assert.equal(delivery?.signatures.length, 1)
    assert.deepEqual(delivery?.verifiedWith, ['current'])
  })
})

describe(`a receiver that hangs, beside a healthy one, on ${TEST_STORE}`, () => {
  const PER_ENDPOINT = 4
  let server: TestServer
  let slow: WebhookReceiver
  let healthy: WebhookReceiver

  before(async () => {
    // The production attempt time-out (10 s): the healthy receiver must get everything well within one attempt.
    server = await startTestServer({
      env: LOOPBACK_WEBHOOKS,
      tuning: {
        ...QUICK_WEBHOOKS,
        webhookAttemptTimeoutMs: 10_000,
        webhookConcurrency: 16,
        webhookConcurrencyPerEndpoint: PER_ENDPOINT,
      },
    })
    slow = await WebhookReceiver.start({ answer: () => 'hang' })
    healthy = await WebhookReceiver.start()
  })
  after(async () => {
    await server.close()
    await Promise.all([slow.close(), healthy.close()])
  })

  it('delivers every event to the healthy receiver while the slow one holds only its share of attempts', async () => {
    await registerWebhook(server, slow, { types: ['pet.created'] })
    await registerWebhook(server, healthy, { types: ['pet.created'] })
    const pets = []
    for (let index = 0; index < 40; index++) pets.push(await createPet(server, `Busy ${index}`))
    await healthy.until(() => healthy.received.length >= 40)
    // Not one attempt to the slow receiver has ended yet (it would have been given up at the time-out): the
    // healthy one got all 40 within one attempt's time, while the slow one held exactly its share of places.
    assert.equal(slow.abandoned.length, 0)
    assert.equal(slow.open, PER_ENDPOINT)
    assert.equal(slow.received.length, PER_ENDPOINT)
    assert.equal(healthy.ids().size, 40)
    // /metrics shows the slow endpoint's attempts in progress, and deliveries overdue behind them.
    const gauge = async (name: string) =>
      Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await (await fetch(`${server.baseUrl}/metrics`)).text())?.[1])
    while ((await gauge('petstore_webhook_attempts_in_progress')) !== PER_ENDPOINT)
      await new Promise((resolve) => setTimeout(resolve, 20))
    while (!((await gauge('petstore_webhook_oldest_due_delivery_age_seconds')) > 0))
      await new Promise((resolve) => setTimeout(resolve, 20))
  })
})

// While this instance holds all it may of an endpoint's deliveries (its places, claimed ahead), a claim could
// take nothing more of that endpoint: a commit must then not cost the writers a claim transaction. Counted on
// SQLite, where every write transaction passes through group commit.
describe(
  `commits while the only endpoint's share of deliveries is held whole, on ${TEST_STORE}`,
  { skip: TEST_STORE === 'postgres' ? "counts SQLite's group-committed transactions" : false },
  () => {
    let server: TestServer
    let stuck: WebhookReceiver

    before(async () => {
      server = await startTestServer({
        env: LOOPBACK_WEBHOOKS,
        tuning: {
          ...QUICK_WEBHOOKS,
          webhookConcurrencyPerEndpoint: 1,
          webhookAttemptTimeoutMs: 60_000,
          webhookLeaseMs: 120_000,
          webhookShutdownWaitMs: 0,
        },
      })
      stuck = await WebhookReceiver.start({ answer: () => 'hang' })
    })
    after(async () => {
      await server.close()
      await stuck.close()
    })

    it('writes nothing but the changes themselves: no claim, and no fan-out, for an endpoint that can \
take no more', async () => {
      await registerWebhook(server, stuck, { types: ['pet.created'] })
      // One place per endpoint, claimed eight ahead: after 12 creates the deliverer holds 8 (one attempt hanging).
      for (let index = 0; index < 12; index++) await createPet(server, `Held ${index}`)
      await stuck.until(() => stuck.open === 1)
      const stats = server.store.groupCommitStats
      assert.ok(stats)
      let before = stats.transactions
      // Until the claims made for the first creates have settled.
      for (let settled = 0, looks = 0; settled < 5; looks++) {
        assert.ok(looks < 100, 'the transactions never stopped for 250 ms')
        await new Promise((resolve) => setTimeout(resolve, 50))
        settled = stats.transactions === before ? settled + 1 : 0
        before = stats.transactions
      }
      const pending = async () =>
        (
          await server.store.read
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<number>().as('count'))
            .where('status', '=', 'pending')
            .where('lease_token', 'is', null)
            .executeTakeFirstOrThrow()
        ).count
      const waiting = Number(await pending())
      assert.ok(waiting > 0, 'the endpoint has due deliveries that its held share leaves waiting')
      for (let index = 0; index < 30; index++) await createPet(server, `Flood ${index}`)
      await new Promise((resolve) => setTimeout(resolve, 300))
      // No claim (the endpoint can take no more), and no fan-out (it has due deliveries left): the flood's events
      // wait in the event log, and the only transactions are the creates.
      assert.equal(stats.transactions - before, 30)
      assert.equal(Number(await pending()), waiting)
      assert.equal(stuck.received.length, 1)
    })
  },
)

// A commit wakes this instance's deliverer only while an endpoint is enabled (so that writes without endpoints
// do not pay for looks); registering or enabling an endpoint here must therefore wake it too. With a poll of a
// minute, only those wakes can deliver within the test.
describe(`webhook delivery woken by this instance's writes on ${TEST_STORE}`, () => {
  let server: TestServer
  let receiver: WebhookReceiver

  before(async () => {
    server = await startTestServer({ env: SHORT_WAITS, tuning: { ...SHORT_ATTEMPTS, webhookPollIntervalMs: 60_000 } })
    receiver = await WebhookReceiver.start()
  })
  after(async () => {
    await server.close()
    await receiver.close()
  })

  /** Fails unless `receiver` has `count` deliveries within 10 s, far less than the minute of the poll. */
  const received = (count: number) =>
    Promise.race([
      receiver.until(() => receiver.received.length >= count),
      new Promise((_, reject) =>
        setTimeout(
          () => reject(new Error(`no delivery ${count} within 10 s: only the poll would bring it`)),
          10_000,
        ).unref(),
      ),
    ])

  it('delivers at once after an endpoint is registered, and after it is enabled again', async () => {
    // Written while no endpoint exists: the deliverer's last look saw none.
    await createPet(server, 'before any endpoint')
    const webhook = await registerWebhook(server, receiver, { types: ['pet.created'] })
    const first = await createPet(server, 'first')
    await received(1)
    assert.deepEqual(
      receiver.received.map((delivery) => (JSON.parse(delivery.body) as FeedEvent).data),
      [{ pet: { id: first.id, name: 'first', categoryId: 1, status: 'available' } }],
    )

    const patch = async (status: string) =>
      assert.equal(
        (await server.request(`/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: { status } })).status,
        200,
      )
    await patch('disabled')
    await createPet(server, 'while disabled')
    await patch('enabled')
    const second = await createPet(server, 'second')
    await received(2)
    assert.deepEqual(
      receiver.received.map((delivery) => (JSON.parse(delivery.body) as FeedEvent).data),
      [
        { pet: { id: first.id, name: 'first', categoryId: 1, status: 'available' } },
        { pet: { id: second.id, name: 'second', categoryId: 1, status: 'available' } },
      ],
    )
  })
})
