// An instance claims deliveries ahead of their attempts (several per place), so some wait in its hands for a place.
// Those must go as the endpoint is when they are sent, not as it was when they were claimed: none after it is
// disabled or deleted, none to its previous URL, none signed only with the secret it rotated away from.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { WebhookReceiver } from '../../helpers/webhook-receiver.js'
import {
  deliveriesWhen,
  LOOPBACK_WEBHOOKS,
  QUICK_WEBHOOKS,
  readDeliveries,
  registerWebhook,
} from '../../helpers/webhooks.js'

/** Longer than a few looks, batch writes and polls of the deliverer: what was going to be sent has been. */
const SETTLE_MS = 600

async function createPets(server: TestServer, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const response = await server.request('/v1/pets', { json: { name: `Held ${index}`, categoryId: 1 } })
    assert.equal(response.status, 201)
  }
}

/** Each test's bound: what it waits for arrives within a second or two. */
const BOUND = { timeout: 15_000 }

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS))

describe(`deliveries an instance holds for an endpoint that changes, on ${TEST_STORE}`, () => {
  let server: TestServer
  const receivers: WebhookReceiver[] = []

  before(async () => {
    // One place per endpoint: the first delivery is sent, the others wait in the instance's hands.
    server = await startTestServer({
      env: { ...LOOPBACK_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE: '100ms' },
      tuning: { ...QUICK_WEBHOOKS, webhookConcurrencyPerEndpoint: 1 },
    })
  })
  after(async () => {
    await server.close()
    await Promise.all(receivers.map((receiver) => receiver.close()))
  })

  /** A receiver that holds its answers until `release` is called. */
  async function heldReceiver(): Promise<{ receiver: WebhookReceiver; release: () => void }> {
    let release = () => {}
    const hold = new Promise<void>((resolve) => (release = resolve))
    const receiver = await WebhookReceiver.start({ hold })
    receivers.push(receiver)
    return { receiver, release }
  }

  /**
   * Registers an endpoint on `receiver`, creates `count` pets, and resolves once the first delivery has reached the
   * receiver (which holds its answer) and the instance holds every other one.
   */
  async function holding(receiver: WebhookReceiver, count: number) {
    const webhook = await registerWebhook(server, receiver, { types: ['pet.created'] })
    await createPets(server, count)
    await receiver.until(() => receiver.received.length >= 1)
    for (;;) {
      const leased = await server.store.read
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('endpoint_id', '=', webhook.id)
        .where('lease_token', 'is not', null)
        .executeTakeFirstOrThrow()
      if (Number(leased.count) === count) break
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    assert.equal(receiver.received.length, 1)
    return webhook
  }

  const patch = async (id: number, body: Record<string, unknown>) => {
    const response = await server.request(`/v1/webhooks/${id}`, { method: 'PATCH', json: body })
    assert.equal(response.status, 200, await response.text())
  }

  it(
    'sends none of them once the endpoint is disabled; they wait, unattempted, and go when it is enabled',
    BOUND,
    async () => {
      const { receiver, release } = await heldReceiver()
      const webhook = await holding(receiver, 4)
      await patch(webhook.id, { status: 'disabled' })
      release()
      await settle()
      assert.equal(receiver.received.length, 1)
      const deliveries = await deliveriesWhen(server, webhook.id, (all) => all.at(-1)?.status === 'succeeded')
      assert.deepEqual(
        deliveries.map(({ status, attempts }) => ({ status, attempts: attempts.length })),
        [
          { status: 'pending', attempts: 0 },
          { status: 'pending', attempts: 0 },
          { status: 'pending', attempts: 0 },
          { status: 'succeeded', attempts: 1 },
        ],
      )

      await patch(webhook.id, { status: 'enabled' })
      await receiver.until(() => receiver.received.length >= 4)
      assert.equal(receiver.ids().size, 4)
    },
  )

  it('sends none of them once the endpoint is deleted', BOUND, async () => {
    const { receiver, release } = await heldReceiver()
    const webhook = await holding(receiver, 4)
    assert.equal((await server.request(`/v1/webhooks/${webhook.id}`, { method: 'DELETE' })).status, 204)
    release()
    await settle()
    assert.equal(receiver.received.length, 1)
  })

  it('sends them to the URL the endpoint was moved to, not to the one they were claimed for', BOUND, async () => {
    const { receiver: before, release } = await heldReceiver()
    const moved = await WebhookReceiver.start()
    receivers.push(moved)
    const webhook = await holding(before, 3)
    await patch(webhook.id, { url: moved.url })
    release()
    await moved.until(() => moved.received.length >= 2)
    await settle()
    assert.equal(before.received.length, 1)
    assert.equal(moved.received.length, 2)
    const sent = await readDeliveries(server, webhook.id)
    assert.deepEqual(
      sent.map(({ status, attempts }) => ({ status, attempts: attempts.length })),
      [
        { status: 'succeeded', attempts: 1 },
        { status: 'succeeded', attempts: 1 },
        { status: 'succeeded', attempts: 1 },
      ],
    )
  })

  it('signs them with the new secret once it is rotated (and the previous one beside it)', BOUND, async () => {
    const { receiver, release } = await heldReceiver()
    const webhook = await holding(receiver, 3)
    const rotated = await server.request(`/v1/webhooks/${webhook.id}/rotate-secret`, { method: 'POST' })
    assert.equal(rotated.status, 200)
    receiver.secrets.set('rotated', ((await rotated.json()) as { secret: string }).secret)
    release()
    await receiver.until(() => receiver.received.length >= 3)
    assert.deepEqual(
      receiver.received.map((delivery) => delivery.verifiedWith),
      [['current'], ['current', 'rotated'], ['current', 'rotated']],
    )
  })
})
