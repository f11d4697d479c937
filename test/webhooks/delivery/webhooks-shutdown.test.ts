// A graceful stop (SIGTERM) while attempts are in progress: after WEBHOOK_SHUTDOWN_WAIT_MS the instance gives them
// up. An attempt whose request was sent is recorded `interrupted` (the receiver may have it, as when an instance
// dies) and counts; the next instance sends it again at once, under the same webhook-id, whatever the retry
// schedule says. One given up before its request left (its host name still resolving) is not recorded or counted.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { killAll, runCli, spawnServer, staticKeyClient, type ServerProcess } from '../../helpers/process.js'
import { startTestServer } from '../../helpers/server.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../../helpers/store.js'
import { WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { deliveriesWhen, instanceEnv, QUICK_WEBHOOKS, registerWebhook } from '../../helpers/webhooks.js'

const KEY = 'webhooks-shutdown-static-key-0123'

describe(`webhook attempts in progress at a graceful stop, on ${TEST_STORE}`, () => {
  let database: TestDatabase
  let receiver: WebhookReceiver
  const instances: ServerProcess[] = []

  const client = (instance: ServerProcess) => staticKeyClient(instance, KEY)
  const env = () => ({
    ...instanceEnv(database.url, KEY),
    // No retries: only the interrupted attempt's own rule can bring the delivery back.
    WEBHOOK_RETRY_SCHEDULE: 'none',
  })
  // Leases and time-outs far longer than the test: only the stop ends the first attempt.
  const tuning = {
    webhookPollIntervalMs: QUICK_WEBHOOKS.webhookPollIntervalMs,
    webhookAttemptTimeoutMs: 120_000,
    webhookLeaseMs: 300_000,
    webhookShutdownWaitMs: 100,
  }

  before(async () => {
    database = await createTestDatabase()
    const migrated = await runCli(['migrate'], { DATABASE_URL: database.url })
    assert.equal(migrated.code, 0, migrated.stderr)
    // The first request hangs until the sender gives it up; the repeat is answered.
    receiver = await WebhookReceiver.start({ answer: ({ number }) => (number === 1 ? 'hang' : { status: 204 }) })
  })
  after(async () => {
    await killAll(instances)
    await receiver.close()
    await database.drop()
  })

  it('records a sent attempt as interrupted, and the next instance sends it again at once', async () => {
    const stopping = await spawnServer(env(), tuning)
    instances.push(stopping)
    const webhook = await registerWebhook(client(stopping), receiver, { types: ['pet.created'] })
    const created = await client(stopping).request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
    assert.equal(created.status, 201)
    await receiver.until(() => receiver.open === 1)
    stopping.child.kill('SIGTERM')
    assert.equal(await stopping.exited, 0)
    await receiver.until(() => receiver.abandoned.length === 1)

    const next = await spawnServer(env(), tuning)
    instances.push(next)
    const [delivery] = await deliveriesWhen(client(next), webhook.id, ([only]) => only?.status === 'succeeded')
    assert.deepEqual(
      delivery?.attempts.map(({ attempt, outcome, responseStatus, error }) => ({
        attempt,
        outcome,
        responseStatus,
        error,
      })),
      [
        {
          attempt: 1,
          outcome: 'interrupted',
          responseStatus: null,
          error:
            'this instance stopped before the answer came (shutdown); the request was sent and may have been received',
        },
        { attempt: 2, outcome: 'succeeded', responseStatus: 204, error: null },
      ],
    )
    assert.deepEqual(
      receiver.received.map((received) => received.webhookId),
      [delivery?.webhookId, delivery?.webhookId],
    )
  })
})

describe(`a webhook attempt given up before its request left, on ${TEST_STORE}`, () => {
  it('is neither recorded nor counted: the delivery is due again with no attempt', async () => {
    const database = await createTestDatabase()
    let resolving = 0
    try {
      const server = await startTestServer({
        database,
        env: { WEBHOOK_RETRY_SCHEDULE: 'none' },
        tuning: { ...QUICK_WEBHOOKS, webhookAttemptTimeoutMs: 120_000, webhookLeaseMs: 300_000 },
        // The endpoint's host name never resolves: the attempt is in progress, and nothing was sent.
        webhookNetwork: {
          resolve: () => {
            resolving++
            return new Promise(() => {})
          },
        },
      })
      const webhook = await registerWebhook(server, undefined, {
        url: 'http://hooks.example/in',
        types: ['pet.created'],
      })
      assert.equal((await server.request('/v1/pets', { json: { name: 'Tom', categoryId: 1 } })).status, 201)
      await deliveriesWhen(server, webhook.id, () => resolving === 1)
      await server.close()
      const again = await startTestServer({
        database,
        tuning: { ...QUICK_WEBHOOKS, webhookAttemptTimeoutMs: 120_000, webhookLeaseMs: 300_000 },
        webhookNetwork: { resolve: () => new Promise(() => {}) },
      })
      try {
        const [delivery] = await deliveriesWhen(again, webhook.id, (deliveries) => deliveries.length === 1)
        assert.deepEqual(
          { status: delivery?.status, attempts: delivery?.attempts },
          { status: 'pending', attempts: [] },
        )
      } finally {
        await again.close()
      }
    } finally {
      await database.drop()
    }
  })
})
