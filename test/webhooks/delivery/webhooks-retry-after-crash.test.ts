// The manual retry of a delivery whose attempt an instance left behind when it was killed (kill -9), on an endpoint
// disabled meanwhile. Nobody takes deliveries of a disabled endpoint, so the dead instance's lease stays on the row;
// once the lease has ended it holds nothing, and the retry must not be refused as "an attempt is in progress".
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { killAll, runCli, spawnServer, staticKeyClient, type ServerProcess } from '../../helpers/process.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../../helpers/store.js'
import { WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { deliveriesWhen, instanceEnv, QUICK_WEBHOOKS, registerWebhook, type Delivery } from '../../helpers/webhooks.js'

const KEY = 'webhooks-retry-crash-key-0123'
const LEASE_MS = 5000
/** Retries are asked this often until the lease has ended; a bound for the test, not a measurement. */
const ASK_EVERY_MS = 100

describe(`retrying a delivery left behind by a killed instance, on ${TEST_STORE}`, () => {
  let database: TestDatabase
  let receiver: WebhookReceiver
  let release: () => void = () => {}
  const instances: ServerProcess[] = []
  // Long enough that the attempt the receiver holds is still open when the instance is killed.
  const tuning = { ...QUICK_WEBHOOKS, webhookAttemptTimeoutMs: LEASE_MS - 1500, webhookLeaseMs: LEASE_MS }

  before(async () => {
    database = await createTestDatabase()
    const migrated = await runCli(['migrate'], { DATABASE_URL: database.url })
    assert.equal(migrated.code, 0, migrated.stderr)
    receiver = await WebhookReceiver.start({ hold: new Promise<void>((resolve) => (release = resolve)) })
  })
  after(async () => {
    release()
    await killAll(instances)
    await receiver.close()
    await database.drop()
  })

  it('is accepted once the lease has ended, while the endpoint is disabled, and the delivery is made once it is \
enabled again, its lost attempt logged as interrupted', async () => {
    const dying = await spawnServer(instanceEnv(database.url, KEY), tuning)
    instances.push(dying)
    const webhook = await registerWebhook(staticKeyClient(dying, KEY), receiver, { types: ['pet.created'] })
    const created = await staticKeyClient(dying, KEY).request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
    assert.equal(created.status, 201)
    await receiver.until(() => receiver.open > 0)
    // Disabled while its attempt is open at the receiver, then killed: the delivery stays under the dead lease.
    const disabled = await staticKeyClient(dying, KEY).request(`/v1/webhooks/${webhook.id}`, {
      method: 'PATCH',
      json: { status: 'disabled' },
    })
    assert.equal(disabled.status, 200, await disabled.text())
    dying.child.kill('SIGKILL')
    await dying.exited

    const survivor = await spawnServer(instanceEnv(database.url, KEY), tuning)
    instances.push(survivor)
    const client = staticKeyClient(survivor, KEY)
    const [delivery] = await deliveriesWhen(client, webhook.id, (deliveries) => deliveries.length === 1)
    assert.ok(delivery)
    assert.equal(delivery.status, 'pending')
    assert.deepEqual(delivery.attempts, [])

    // Refused while the lease runs (the dead instance's attempt could still be under way); accepted once it ended.
    const path = `/v1/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`
    let retried = await client.request(path, { method: 'POST' })
    for (let asked = 1; retried.status === 409 && asked < (LEASE_MS * 5) / ASK_EVERY_MS; asked++) {
      const refused = (await retried.json()) as { code: string; message: string; status: number }
      assert.deepEqual(refused, {
        code: 'conflict',
        message: `An attempt of delivery ${delivery.id} is in progress; retry once it has ended.`,
        status: 409,
      })
      await new Promise((resolve) => setTimeout(resolve, ASK_EVERY_MS))
      retried = await client.request(path, { method: 'POST' })
    }
    const body = (await retried.json()) as Delivery
    assert.equal(retried.status, 202, JSON.stringify(body))
    assert.equal(body.id, delivery.id)
    assert.equal(body.status, 'pending')
    assert.equal(typeof body.nextAttemptAt, 'string')
    assert.deepEqual(body.attempts, [])

    release()
    const enabled = await client.request(`/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: { status: 'enabled' } })
    assert.equal(enabled.status, 200, await enabled.text())
    const [done] = await deliveriesWhen(client, webhook.id, ([only]) => only?.status === 'succeeded')
    assert.deepEqual(
      done?.attempts.map(({ attempt, outcome }) => ({ attempt, outcome })),
      [
        { attempt: 1, outcome: 'interrupted' },
        { attempt: 2, outcome: 'succeeded' },
      ],
    )
  })
})
