// A step of the wall clock (an NTP correction, a virtual machine resumed) while the server runs: deliveries go
// on. The worker spaces its looks by the monotonic clock, so a step back does not hold the next look back by
// the size of the step (an hour here, during which nothing was delivered and a shutdown waited out its grace).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { stepWallClock } from '../../helpers/wall-clock.js'
import { WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { LOOPBACK_WEBHOOKS, QUICK_WEBHOOKS, registerWebhook } from '../../helpers/webhooks.js'

const HOUR_MS = 3_600_000

const petOf = (delivery: { body: string }) => (JSON.parse(delivery.body) as { data: { pet: unknown } }).data.pet

describe(`webhook delivery across a step of the wall clock on ${TEST_STORE}`, () => {
  let server: TestServer
  let receiver: WebhookReceiver

  before(async () => {
    server = await startTestServer({ env: LOOPBACK_WEBHOOKS, tuning: QUICK_WEBHOOKS })
    receiver = await WebhookReceiver.start()
  })
  after(async () => {
    stepWallClock(0)
    await server.close()
    await receiver.close()
  })

  it('delivers the events of a change made after the clock stepped back an hour, within seconds', async () => {
    await registerWebhook(server, receiver, { types: ['pet.created'] })
    const before = await server.request('/v1/pets', { json: { name: 'Before', categoryId: 1 } })
    assert.equal(before.status, 201)
    await receiver.until(() => receiver.received.length === 1)
    // The worker's looks after that delivery are over: the step comes while it waits for work.
    await new Promise((resolve) => setTimeout(resolve, 300))

    stepWallClock(-HOUR_MS)
    try {
      const afterStep = await server.request('/v1/pets', { json: { name: 'After', categoryId: 1 } })
      assert.equal(afterStep.status, 201)
      const { id } = (await afterStep.json()) as { id: number }
      const deadline = performance.now() + 5000
      while (receiver.received.length < 2 && performance.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 25))
      assert.deepEqual(receiver.received.map(petOf), [
        { id: id - 1, name: 'Before', categoryId: 1, status: 'available' },
        { id, name: 'After', categoryId: 1, status: 'available' },
      ])
    } finally {
      stepWallClock(0)
    }
  })
})
