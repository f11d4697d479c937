// category.created, category.updated and category.deleted: written with the change (a refused change writes
// none), listed by the feed's `types` filter, and delivered to a webhook that subscribes to them.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createCategory, deleteCategory, putCategory } from '../helpers/categories.js'
import { eventsBefore, readWholeFeed } from '../helpers/events.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { WebhookReceiver } from '../helpers/webhook-receiver.js'
import { LOOPBACK_WEBHOOKS, registerWebhook } from '../helpers/webhooks.js'

const CATEGORY_TYPES = ['category.created', 'category.updated', 'category.deleted']

describe('category events', () => {
  let server: TestServer
  let receiver: WebhookReceiver
  before(async () => {
    server = await startTestServer({ env: LOOPBACK_WEBHOOKS })
    receiver = await WebhookReceiver.start()
  })
  after(async () => {
    await server.close()
    await receiver.close()
  })

  it('records each change as its event, lists them by type, and delivers them to a subscribed webhook', async () => {
    const webhook = await registerWebhook(server, receiver, { types: CATEGORY_TYPES })
    assert.deepEqual(webhook.types, CATEGORY_TYPES)
    assert.equal((await server.request('/v1/pets', { json: { name: 'Unrelated', categoryId: 3 } })).status, 201)
    const created = await createCategory(server, 'Horses')
    assert.equal((await putCategory(server, created.id, 'Ponies')).status, 200)
    assert.equal((await putCategory(server, created.id, 'Ponies')).status, 200)
    assert.equal((await server.request('/v1/categories', { json: { name: 'PONIES' } })).status, 409)
    assert.equal((await deleteCategory(server, created.id)).status, 204)

    const expected = [
      { type: 'category.created', data: { category: { id: created.id, name: 'Horses' } } },
      { type: 'category.updated', data: { category: { id: created.id, name: 'Ponies' } } },
      { type: 'category.deleted', data: { category: { id: created.id, name: 'Ponies' } } },
    ]
    // Every change above is listed once a later one is (on PostgreSQL a commit is listed once older ones end).
    const all = await eventsBefore((path, init) => server.request(path, init), 0)
    assert.deepEqual(
      all.map((event) => event.type),
      ['pet.created', ...CATEGORY_TYPES],
    )
    const listed = await readWholeFeed((path) => server.request(path), 0, `types=${CATEGORY_TYPES.join(',')}`)
    assert.deepEqual(
      listed.map(({ type, data }) => ({ type, data })),
      expected,
    )
    await receiver.until(() => receiver.received.length >= expected.length)
    const delivered = receiver.received
      .map((delivery) => ({ ...delivery, event: JSON.parse(delivery.body) as { id: number; type: string } }))
      .sort((a, b) => a.event.id - b.event.id)
    assert.deepEqual(
      delivered.map(({ body, webhookId, verifiedWith }) => ({ body, webhookId, verifiedWith })),
      listed.map((event) => ({ body: JSON.stringify(event), webhookId: `evt_${event.id}`, verifiedWith: ['current'] })),
    )
  })
})
