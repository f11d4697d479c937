// A cursor of one webhook's delivery log pages that log only: given to another webhook's log, it is refused as a
// cursor this collection did not issue, as a pets cursor is by the orders.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../../helpers/error-assert.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { deliveriesWhen, NO_NETWORK, QUICK_WEBHOOKS, registerWebhook } from '../../helpers/webhooks.js'

describe(`the cursors of delivery logs, on ${TEST_STORE}`, () => {
  let server: TestServer
  before(async () => {
    // Endpoints here name hosts out there: no name resolves, so nothing is ever sent to them.
    server = await startTestServer({ webhookNetwork: NO_NETWORK, tuning: QUICK_WEBHOOKS })
  })
  after(() => server.close())

  it("are refused by another webhook's log", async () => {
    const subscribed = { types: ['pet.created'] }
    const first = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/first', ...subscribed })
    const second = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/second', ...subscribed })
    for (const name of ['One', 'Two'])
      assert.equal((await server.request('/v1/pets', { json: { name, categoryId: 1 } })).status, 201)
    for (const webhook of [first, second]) await deliveriesWhen(server, webhook.id, (found) => found.length === 2)

    const page = await server.request(`/v1/webhooks/${first.id}/deliveries?limit=1`)
    assert.equal(page.status, 200)
    const next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1]
    assert.ok(next, 'a next page')
    const cursor = new URL(next).searchParams.get('cursor')

    const own = await server.request(`/v1/webhooks/${first.id}/deliveries?limit=1&cursor=${cursor}`)
    assert.equal(own.status, 200)
    assert.equal(((await own.json()) as unknown[]).length, 1)
    await assertError(await server.request(`/v1/webhooks/${second.id}/deliveries?limit=1&cursor=${cursor}`), {
      status: 400,
      code: 'invalid_request',
      message: 'The cursor is not valid: use the Link header of a previous page unchanged.',
      details: [{ path: 'query/cursor', message: 'is not a cursor this service issued' }],
    })
  })
})
