// kill -9 of the instance that is delivering, with 300 deliveries pending and some of its attempts sent and not
// yet answered. Another instance, started on the same database while the dead one's leases still run, takes over.
// Every event reaches the receiver at least once, a repeat carries the same webhook-id (and body), and each
// attempt the dead instance left unfinished is logged as interrupted before the attempt that succeeded. The
// deliveries it had claimed ahead without starting them come back without an attempt logged or counted.
// The kill comes while the receiver still holds every answer: an attempt open at the receiver was sent, so its
// start was recorded, and no answer can end it before the kill. (Killing once answers flow raced the instance:
// it could be between attempts at that moment, and a second instance delivering all along made it impossible to
// tell whose attempts were open.)
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { killAll, runCli, spawnServer, staticKeyClient, type ServerProcess } from '../../helpers/process.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../../helpers/store.js'
import { WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { deliveriesWhen, instanceEnv, QUICK_WEBHOOKS, registerWebhook } from '../../helpers/webhooks.js'

const KEY = 'webhooks-crash-static-key-0123'
const EVENTS = 300
/** The production default of WEBHOOK_CONCURRENCY_PER_ENDPOINT: attempts in progress per endpoint, at most. */
const PLACES_PER_ENDPOINT = 8

describe(`kill -9 of the delivering instance on ${TEST_STORE}`, () => {
  let database: TestDatabase
  let receiver: WebhookReceiver
  let release: () => void = () => {}
  const instances: ServerProcess[] = []

  const client = (instance: ServerProcess) => staticKeyClient(instance, KEY)

  const env = () => ({
    ...instanceEnv(database.url, KEY),
    WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms',
  })
  const tuning = {
    webhookPollIntervalMs: QUICK_WEBHOOKS.webhookPollIntervalMs,
    // Longer than the changes usually take; an attempt held past it times out and is retried, which the checks allow.
    webhookAttemptTimeoutMs: 5000,
    webhookLeaseMs: 7000,
  }

  before(async () => {
    database = await createTestDatabase()
    const migrated = await runCli(['migrate'], { DATABASE_URL: database.url })
    assert.equal(migrated.code, 0, migrated.stderr)
    // Answers are held until the delivering instance is dead, so that nearly all 300 deliveries are pending then.
    receiver = await WebhookReceiver.start({ hold: new Promise<void>((resolve) => (release = resolve)), delayMs: 20 })
  })
  after(async () => {
    release()
    await killAll(instances)
    await receiver.close()
    await database.drop()
  })

  it('delivers every event at least once, repeats under the same webhook-id, logs only attempts really \
started', async () => {
    const delivering = await spawnServer(env(), tuning)
    instances.push(delivering)
    const webhook = await registerWebhook(client(delivering), receiver, { types: ['pet.created'] })

    await Promise.all(
      Array.from({ length: 10 }, async (_, worker) => {
        for (let index = 0; index < EVENTS / 10; index++) {
          const response = await client(delivering).request('/v1/pets', {
            json: { name: `crash ${worker}-${index}`, categoryId: 1 },
          })
          assert.equal(response.status, 201)
        }
      }),
    )
    // Only the dying instance delivers so far: whatever is open at the receiver is its attempt, sent and unanswered.
    await receiver.until(() => receiver.open > 0)
    delivering.child.kill('SIGKILL')
    await delivering.exited
    const pendingAtKill = EVENTS - receiver.ids().size
    release()

    const survivor = await spawnServer(env(), tuning)
    instances.push(survivor)
    await receiver.until(() => receiver.ids().size === EVENTS)

    const log = await deliveriesWhen(
      client(survivor),
      webhook.id,
      (deliveries) => deliveries.length === EVENTS && deliveries.every((delivery) => delivery.status === 'succeeded'),
    )
    assert.equal(new Set(log.map((delivery) => delivery.webhookId)).size, EVENTS)
    // Every request verifies, and a webhook-id always comes with the same body: repeats are the same event.
    const bodies = new Map<string, string>()
    for (const delivery of receiver.received) {
      assert.deepEqual(delivery.verifiedWith, ['current'])
      assert.equal(delivery.webhookId, `evt_${(JSON.parse(delivery.body) as { id: number }).id}`)
      assert.equal(bodies.get(delivery.webhookId) ?? delivery.body, delivery.body)
      bodies.set(delivery.webhookId, delivery.body)
    }
    // The dead instance held leases: each attempt it left unrecorded is logged as interrupted, and the delivery
    // was attempted again (to the receiver: a repeat, under the same webhook-id as checked above).
    const interrupted = log.filter((delivery) => delivery.attempts.some((attempt) => attempt.outcome === 'interrupted'))
    assert.ok(interrupted.length > 0, 'the instance died holding leases')
    // Only attempts it had started are: at most its places for the endpoint, although it held more, claimed ahead.
    assert.ok(interrupted.length <= PLACES_PER_ENDPOINT, `${interrupted.length} interrupted attempts`)
    assert.ok(pendingAtKill > PLACES_PER_ENDPOINT, `${pendingAtKill} pending when it died`)
    for (const delivery of interrupted) {
      assert.deepEqual(
        delivery.attempts.map((attempt) => attempt.outcome).slice(-2),
        ['interrupted', 'succeeded'],
        delivery.webhookId,
      )
    }
    const repeated = new Set(
      receiver.received.map((delivery) => delivery.webhookId).filter((id, index, all) => all.indexOf(id) !== index),
    )
    for (const id of repeated)
      assert.ok((log.find((delivery) => delivery.webhookId === id)?.attempts.length ?? 0) >= 2, id)
    // No attempt is logged that was not sent: an attempt with an outcome was sent, so each delivery has at most
    // as many of them as the receiver saw its webhook-id, and at most one interrupted attempt besides.
    const seen = new Map<string, number>()
    for (const delivery of receiver.received) seen.set(delivery.webhookId, (seen.get(delivery.webhookId) ?? 0) + 1)
    for (const delivery of log) {
      const outcomes = delivery.attempts.map((attempt) => attempt.outcome)
      assert.ok(outcomes.filter((outcome) => outcome === 'interrupted').length <= 1, delivery.webhookId)
      const answered = outcomes.filter((outcome) => outcome !== 'interrupted').length
      assert.ok(answered <= (seen.get(delivery.webhookId) ?? 0), delivery.webhookId)
    }
  })
})
