// client.webhooks.* against the real service, and verifyWebhook on real deliveries: a receiver on loopback, as an
// integrator writes one, hands the raw body and Node's request.headers to verifyWebhook, which accepts what the
// service sent (also with both secrets during a rotation) and refuses it tampered with or under another secret.
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import {
  createPetstoreClient,
  PetstoreError,
  verifyWebhook,
  WebhookVerificationError,
  type PetstoreClient,
} from '../../client/src/index.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'
import { LOOPBACK_WEBHOOKS, QUICK_WEBHOOKS } from '../helpers/webhooks.js'

interface Received {
  body: Buffer
  headers: IncomingHttpHeaders
}

/** Records every request, raw, and answers 204. */
class Receiver {
  readonly received: Received[] = []
  readonly #server: Server
  #waiters: (() => void)[] = []

  constructor() {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        this.received.push({ body: Buffer.concat(chunks), headers: request.headers })
        response.writeHead(204).end()
        for (const wake of this.#waiters.splice(0)) wake()
      })
    })
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve))
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hooks`
  }

  /** The n-th request (from 1), once it has arrived; the test's time-out bounds the wait. */
  async nth(count: number): Promise<Received> {
    while (this.received.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve))
    return this.received[count - 1] as Received
  }

  close(): Promise<void> {
    this.#server.closeAllConnections()
    return new Promise((resolve) => this.#server.close(() => resolve()))
  }
}

describe('@petstore/client: webhooks', () => {
  let server: TestServer
  let client: PetstoreClient
  const receiver = new Receiver()
  before(async () => {
    server = await startTestServer({
      env: { ...LOOPBACK_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE: '100ms,100ms' },
      tuning: QUICK_WEBHOOKS,
    })
    client = createPetstoreClient({ baseUrl: `${server.baseUrl}/v1`, apiKey: TEST_API_KEY })
    await receiver.start()
  })
  after(async () => {
    await receiver.close()
    await server.close()
  })

  it('manages an endpoint: create (with its secret), get, list, update, and remove', async () => {
    const created = await client.webhooks.create({ url: 'http://127.0.0.1:9/managed', description: 'to manage' })
    assert.match(created.secret, /^whsec_/)
    const { secret, ...shown } = created
    assert.equal(typeof secret, 'string')
    assert.deepEqual(await client.webhooks.get(created.id), shown)
    assert.ok((await client.webhooks.list()).items.some((listed) => listed.id === created.id))
    const all = []
    for await (const listed of client.webhooks.listAll({ limit: 1 })) all.push(listed.id)
    assert.ok(all.includes(created.id))

    const disabled = await client.webhooks.update(created.id, { status: 'disabled', description: null })
    assert.deepEqual([disabled.status, disabled.description], ['disabled', null])
    assert.equal(await client.webhooks.remove(created.id), undefined)
    const gone = await client.webhooks.get(created.id).then(
      () => assert.fail('expected 404'),
      (error: unknown) => error,
    )
    assert.ok(gone instanceof PetstoreError)
    assert.deepEqual([gone.status, gone.code], [404, 'not_found'])
  })

  it('verifyWebhook accepts a real delivery and refuses it tampered with or under another secret', async () => {
    const webhook = await client.webhooks.create({ url: receiver.url, types: ['pet.created'] })
    const { pet } = await client.pets.create({ name: 'Delivered', categoryId: 4 })
    const delivery = await receiver.nth(1)

    const event = verifyWebhook(delivery.body, delivery.headers, webhook.secret)
    assert.equal(event.type, 'pet.created')
    assert.deepEqual(event.data, { pet })
    assert.equal(delivery.headers['webhook-id'], `evt_${event.id}`)
    const fromFeed = (await client.events.list({ after: event.id - 1, limit: 1 })).events[0]
    assert.deepEqual(event, fromFeed)
    // The body as text verifies the same.
    assert.deepEqual(verifyWebhook(delivery.body.toString('utf8'), delivery.headers, webhook.secret), event)

    const tampered = delivery.body.toString('utf8').replace('"Delivered"', '"Forged"')
    assert.throws(() => verifyWebhook(tampered, delivery.headers, webhook.secret), WebhookVerificationError)
    const other = await client.webhooks.create({ url: 'http://127.0.0.1:9/other', types: ['order.placed'] })
    assert.throws(() => verifyWebhook(delivery.body, delivery.headers, other.secret), WebhookVerificationError)

    // The delivery log shows it (once its outcome is recorded, a moment after the receiver answered); a retry
    // sends it again under the same webhook-id.
    let [logged] = (await client.webhooks.listDeliveries(webhook.id)).items
    for (let looks = 0; logged?.status === 'pending' && looks < 100; looks++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      ;[logged] = (await client.webhooks.listDeliveries(webhook.id)).items
    }
    assert.equal(logged?.eventId, event.id)
    assert.equal(logged?.status, 'succeeded')
    const retried = await client.webhooks.retryDelivery(webhook.id, logged.id)
    assert.equal(retried.status, 'pending')
    const again = await receiver.nth(2)
    assert.equal(again.headers['webhook-id'], delivery.headers['webhook-id'])
    assert.deepEqual(verifyWebhook(again.body, again.headers, webhook.secret), event)
    const everyDelivery = []
    for await (const each of client.webhooks.listAllDeliveries(webhook.id, { limit: 1 })) everyDelivery.push(each.id)
    assert.deepEqual(everyDelivery, [logged.id])

    // After a rotation both secrets verify while the previous one still signs.
    const rotated = await client.webhooks.rotateSecret(webhook.id)
    assert.notEqual(rotated.secret, webhook.secret)
    await client.pets.create({ name: 'After rotation', categoryId: 4 })
    const signedTwice = await receiver.nth(3)
    assert.equal(String(signedTwice.headers['webhook-signature']).split(' ').length, 2)
    const newest = verifyWebhook(signedTwice.body, signedTwice.headers, rotated.secret)
    assert.deepEqual(verifyWebhook(signedTwice.body, signedTwice.headers, webhook.secret), newest)
    await client.webhooks.remove(webhook.id)
    await client.webhooks.remove(other.id)
  })
})
