// GET /v1/store/orders (listOrders): ascending ids, limit, and Link cursor pagination like GET /v1/pets, with
// cursors that belong to the order list alone.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../helpers/error-assert.js'
import { nextLink } from '../helpers/link.js'
import { addPet, finishOrder, placeOrder, type Order } from '../helpers/orders.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const INVALID_CURSOR = {
  status: 400,
  code: 'invalid_request',
  message: 'The cursor is not valid: use the Link header of a previous page unchanged.',
  details: [{ path: 'query/cursor', message: 'is not a cursor this service issued' }],
}

describe('GET /v1/store/orders (listOrders)', () => {
  let server: TestServer
  const orders: Order[] = []

  before(async () => {
    server = await startTestServer()
    const empty = await server.request('/v1/store/orders')
    assert.equal(empty.status, 200)
    assert.deepEqual(await empty.json(), [])
    assert.equal(empty.headers.get('link'), null)
    // 45 orders in all three states: every third cancelled, every third completed.
    for (let index = 0; index < 45; index++) {
      const pet = await addPet(server, 'available', `pet-${index}`)
      const order = await placeOrder(server, { petId: pet.id, quantity: (index % 5) + 1 })
      orders.push(
        index % 3 === 0 ? order : await finishOrder(server, order.id, index % 3 === 1 ? 'cancel' : 'complete'),
      )
    }
  })
  after(() => server.close())

  it('returns the first 20 orders in id order, whatever their state, with a next link that keeps the \
limit', async () => {
    const response = await server.request('/v1/store/orders')
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.deepEqual(await response.json(), orders.slice(0, 20))
    assert.deepEqual(
      new Set(orders.slice(0, 20).map((order) => order.status)),
      new Set(['placed', 'cancelled', 'completed']),
    )
    const next = nextLink(response)
    assert.ok(next)
    const url = new URL(next)
    assert.equal(url.origin + url.pathname, `${server.baseUrl}/v1/store/orders`)
    assert.deepEqual([...url.searchParams.keys()], ['limit', 'cursor'])
    assert.equal(url.searchParams.get('limit'), '20')
  })

  it('walks every page exactly once, and the last page has no next link', async () => {
    const seen: Order[] = []
    let path: string | undefined = '/v1/store/orders?limit=7'
    let pages = 0
    while (path) {
      const response = await server.request(path)
      assert.equal(response.status, 200)
      seen.push(...(await response.json()))
      path = nextLink(response)?.slice(server.baseUrl.length)
      pages++
    }
    assert.equal(pages, 7)
    assert.deepEqual(seen, orders)
  })

  it('accepts limit=1 and limit=100, and has no next link when the page ends at the last order', async () => {
    const one = await server.request('/v1/store/orders?limit=1')
    assert.deepEqual(await one.json(), orders.slice(0, 1))
    assert.ok(nextLink(one))
    const all = await server.request('/v1/store/orders?limit=100')
    assert.deepEqual(await all.json(), orders)
    assert.equal(all.headers.get('link'), null)
    const exact = await server.request('/v1/store/orders?limit=45')
    assert.deepEqual(await exact.json(), orders)
    assert.equal(exact.headers.get('link'), null)
  })

  it('shows orders as they change: a page read again after a transition has the new state', async () => {
    const placed = orders.find((order) => order.status === 'placed')
    assert.ok(placed)
    const completed = await finishOrder(server, placed.id, 'complete')
    orders[orders.indexOf(placed)] = completed
    const all = await (await server.request('/v1/store/orders?limit=100')).json()
    assert.deepEqual(all, orders)
  })

  it('refuses a tampered or made-up cursor', async () => {
    const next = nextLink(await server.request('/v1/store/orders?limit=2'))
    assert.ok(next)
    const cursor = new URL(next).searchParams.get('cursor') ?? ''
    const [payload, signature] = cursor.split('.')
    const forgedPayload = Buffer.from('40.').toString('base64url')
    for (const bad of [
      `${forgedPayload}.${signature}`,
      `${payload}.${signature?.slice(1)}`,
      'abc',
      `${cursor}.x`,
      Buffer.from('2.').toString('base64url'),
    ]) {
      await assertError(await server.request(`/v1/store/orders?cursor=${encodeURIComponent(bad)}`), INVALID_CURSOR)
    }
  })

  it('refuses a cursor of GET /v1/pets, and GET /v1/pets refuses an order cursor', async () => {
    const petNext = nextLink(await server.request('/v1/pets?limit=2'))
    assert.ok(petNext)
    const petCursor = new URL(petNext).searchParams.get('cursor') ?? ''
    await assertError(await server.request(`/v1/store/orders?cursor=${petCursor}`), INVALID_CURSOR)

    const orderNext = nextLink(await server.request('/v1/store/orders?limit=2'))
    assert.ok(orderNext)
    const orderCursor = new URL(orderNext).searchParams.get('cursor') ?? ''
    // Both encode "the last id was 2, no filter": only the signature, bound to its collection, tells them apart.
    assert.equal(orderCursor.split('.')[0], petCursor.split('.')[0])
    await assertError(await server.request(`/v1/pets?cursor=${orderCursor}`), INVALID_CURSOR)
  })

  const badQueries: [string, { path: string; message: string }[]][] = [
    ['limit=0', [{ path: 'query/limit', message: 'must be >= 1' }]],
    ['limit=101', [{ path: 'query/limit', message: 'must be <= 100' }]],
    ['limit=2.5', [{ path: 'query/limit', message: 'must be integer' }]],
    ['limit=05', [{ path: 'query/limit', message: 'must be integer' }]],
    ['limit=', [{ path: 'query/limit', message: 'must be integer' }]],
    ['limit=5&limit=6', [{ path: 'query/limit', message: 'must be given at most once' }]],
    ['status=placed', [{ path: 'query/status', message: 'is not a known parameter' }]],
    ['petId=1', [{ path: 'query/petId', message: 'is not a known parameter' }]],
    ['cursor=', [{ path: 'query/cursor', message: 'must NOT have fewer than 1 characters' }]],
    [`cursor=${'a'.repeat(257)}`, [{ path: 'query/cursor', message: 'must NOT have more than 256 characters' }]],
  ]
  for (const [query, details] of badQueries) {
    it(`refuses ?${query.slice(0, 40)} with 400`, async () => {
      const message = `Invalid request: ${details.map((detail) => `${detail.path} ${detail.message}`).join('; ')}`
      await assertError(await server.request(`/v1/store/orders?${query}`), {
        status: 400,
        code: 'invalid_request',
        message,
        details,
      })
    })
  }
})

describe('listOrders with PUBLIC_BASE_URL', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { PUBLIC_BASE_URL: 'https://shop.example.org' } })
  })
  after(() => server.close())

  it('builds Location and Link on the configured origin', async () => {
    const created: Order[] = []
    for (let index = 0; index < 2; index++) {
      const pet = await addPet(server)
      const response = await server.request('/v1/store/orders', { json: { petId: pet.id } })
      assert.equal(response.status, 201)
      const order: Order = await response.json()
      assert.equal(response.headers.get('location'), `https://shop.example.org/v1/store/orders/${order.id}`)
      created.push(order)
    }
    const page = await server.request('/v1/store/orders?limit=1')
    assert.deepEqual(await page.json(), created.slice(0, 1))
    assert.match(
      page.headers.get('link') ?? '',
      /^<https:\/\/shop\.example\.org\/v1\/store\/orders\?limit=1&cursor=[^>]+>; rel="next"$/,
    )
  })
})
