// What an instance remembers of an endpoint (whether it answers, its throttling, its /metrics series) goes with
// the endpoint: deleted through this instance or by another one (here: straight in the database), a throttled
// endpoint leaves petstore_webhook_endpoint_throttled_places, and stays out of it; one still there stays in.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { LOOPBACK_WEBHOOKS, QUICK_WEBHOOKS, registerWebhook } from '../../helpers/webhooks.js'

const ATTEMPT_TIMEOUT_MS = 1000

describe(`throttling of deleted webhook endpoints, on ${TEST_STORE}`, () => {
  let server: TestServer
  const hanging: WebhookReceiver[] = []

  before(async () => {
    server = await startTestServer({
      env: { ...LOOPBACK_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE: Array(8).fill('100ms').join(',') },
      tuning: { ...QUICK_WEBHOOKS, webhookAttemptTimeoutMs: ATTEMPT_TIMEOUT_MS, webhookLeaseMs: 5000 },
    })
    for (let index = 0; index < 3; index++) hanging.push(await WebhookReceiver.start({ answer: () => 'hang' }))
  })
  after(async () => {
    await server.close()
    await Promise.all(hanging.map((receiver) => receiver.close()))
  })

  /** The endpoints /metrics lists as throttled, in id order. */
  const throttled = async () => {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text()
    const line = /^petstore_webhook_endpoint_throttled_places\{endpoint="(\d+)",reason="timed_out"\} \d+$/gm
    return [...text.matchAll(line)].map((match) => Number(match[1])).sort((a, b) => a - b)
  }
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

  it('forgets an endpoint deleted here or elsewhere, and keeps the others', async () => {
    const ids: number[] = []
    for (const receiver of hanging) ids.push((await registerWebhook(server, receiver, { types: ['pet.created'] })).id)
    const [here, elsewhere, kept] = ids as [number, number, number]
    const created = await server.request('/v1/pets', { json: { name: 'Unheard', categoryId: 1 } })
    assert.equal(created.status, 201)
    while ((await throttled()).length < 3) await pause(50)
    assert.deepEqual(await throttled(), ids)

    assert.equal((await server.request(`/v1/webhooks/${here}`, { method: 'DELETE' })).status, 204)
    // As another instance deletes it: this one is not told.
    await server.store.admin.deleteFrom('webhook_endpoints').where('id', '=', elsewhere).execute()
    // An attempt in progress to either ends at its time-out (the last one: they are never claimed again); then
    // they are forgotten within a poll.
    const [hereReceiver, elsewhereReceiver] = hanging as [WebhookReceiver, WebhookReceiver]
    await hereReceiver.until(() => hereReceiver.open === 0)
    await elsewhereReceiver.until(() => elsewhereReceiver.open === 0)
    for (let waited = 0; waited < 2000 && (await throttled()).length !== 1; waited += 50) await pause(50)
    assert.deepEqual(await throttled(), [kept])
    // And for good: no attempt brings them back.
    await pause(ATTEMPT_TIMEOUT_MS + 200)
    assert.deepEqual(await throttled(), [kept])
  })
})
