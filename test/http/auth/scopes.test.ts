// Keys that can be limited: scopes per operation (403 insufficient_scope, RFC 6750 section 3.1), expiry, and
// revocation, over real HTTP. Scopes are checked after authentication and before validation and lookup.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { issueApiKey } from '../../../src/keys/issue-key.js'
import { revokeKey } from '../../../src/keys/issue-key.js'
import { SCOPES, type Scope } from '../../../src/keys/scopes.js'
import { assertError } from '../../helpers/error-assert.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

const INVALID_CHALLENGE = 'Bearer realm="petstore", error="invalid_token", error_description="The API key is not valid"'
const INVALID = { status: 401, code: 'unauthorized', message: 'The API key is not valid.' }

function forbidden(scope: Scope) {
  return {
    expected: {
      status: 403,
      code: 'forbidden',
      message: `This API key does not have the scope ${scope}, which this operation requires.`,
    },
    headers: { 'www-authenticate': `Bearer realm="petstore", error="insufficient_scope", scope="${scope}"` },
  }
}

describe('API key scopes, expiry and revocation', () => {
  let server: TestServer
  let petId: number
  let orderId: number
  const keys = new Map<string, string>()

  /** A stored key with exactly these scopes (cached by scope list). */
  async function keyWith(scopes: readonly Scope[], options: { expiresAt?: string } = {}): Promise<string> {
    const label = `${scopes.join(',')}|${options.expiresAt ?? ''}`
    const known = keys.get(label)
    if (known) return known
    const { key } = await issueApiKey(server.store, `scoped ${label}`, { scopes, ...options })
    keys.set(label, key)
    return key
  }

  before(async () => {
    server = await startTestServer()
    const pet = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
    petId = ((await pet.json()) as { id: number }).id
    const spare = await server.request('/v1/pets', { json: { name: 'Spot', categoryId: 1 } })
    const order = await server.request('/v1/store/orders', {
      json: { petId: ((await spare.json()) as { id: number }).id },
    })
    assert.equal(order.status, 201)
    orderId = ((await order.json()) as { id: number }).id
  })
  after(() => server.close())

  // Each operation with the scope it needs, and a request that does not change the data it depends on.
  const operations: {
    name: string
    scope: Scope
    request: () => [string, RequestInit & { json?: unknown }]
    allowed: number
  }[] = [
    { name: 'listPets', scope: 'pets:read', request: () => ['/v1/pets', {}], allowed: 200 },
    { name: 'getPet', scope: 'pets:read', request: () => [`/v1/pets/${petId}`, {}], allowed: 200 },
    {
      name: 'createPet',
      scope: 'pets:write',
      request: () => ['/v1/pets', { json: { name: 'Scoped', categoryId: 2 } }],
      allowed: 201,
    },
    {
      name: 'updatePet',
      scope: 'pets:write',
      request: () => ['/v1/pets/999999', { method: 'PATCH', json: { name: 'Scoped' } }],
      allowed: 404,
    },
    { name: 'deletePet', scope: 'pets:write', request: () => ['/v1/pets/999999', { method: 'DELETE' }], allowed: 404 },
    { name: 'listCategories', scope: 'pets:read', request: () => ['/v1/categories', {}], allowed: 200 },
    { name: 'getCategory', scope: 'pets:read', request: () => ['/v1/categories/999999', {}], allowed: 404 },
    {
      name: 'createCategory',
      scope: 'pets:write',
      request: () => ['/v1/categories', { json: { name: '' } }],
      allowed: 400,
    },
    {
      name: 'putCategory',
      scope: 'pets:write',
      request: () => [
        '/v1/categories/999999',
        { method: 'PUT', json: { name: 'Scoped' }, headers: { 'if-match': '*' } },
      ],
      allowed: 412,
    },
    {
      name: 'deleteCategory',
      scope: 'pets:write',
      request: () => ['/v1/categories/999999', { method: 'DELETE' }],
      allowed: 404,
    },
    { name: 'listOrders', scope: 'orders:read', request: () => ['/v1/store/orders', {}], allowed: 200 },
    { name: 'getOrder', scope: 'orders:read', request: () => [`/v1/store/orders/${orderId}`, {}], allowed: 200 },
    {
      name: 'placeOrder',
      scope: 'orders:write',
      request: () => ['/v1/store/orders', { json: { petId: 999_999 } }],
      allowed: 404,
    },
    {
      name: 'cancelOrder',
      scope: 'orders:write',
      request: () => ['/v1/store/orders/999999', { method: 'DELETE' }],
      allowed: 404,
    },
    {
      name: 'completeOrder',
      scope: 'orders:write',
      request: () => ['/v1/store/orders/999999/complete', { method: 'POST' }],
      allowed: 404,
    },
    { name: 'listEvents', scope: 'events:read', request: () => ['/v1/events?limit=1', {}], allowed: 200 },
    { name: 'listWebhooks', scope: 'webhooks:manage', request: () => ['/v1/webhooks', {}], allowed: 200 },
    {
      name: 'createWebhook',
      scope: 'webhooks:manage',
      request: () => ['/v1/webhooks', { json: { url: 'http://127.0.0.1/refused' } }],
      allowed: 400,
    },
    { name: 'getWebhook', scope: 'webhooks:manage', request: () => ['/v1/webhooks/999999', {}], allowed: 404 },
    {
      name: 'updateWebhook',
      scope: 'webhooks:manage',
      request: () => ['/v1/webhooks/999999', { method: 'PATCH', json: { status: 'disabled' } }],
      allowed: 404,
    },
    {
      name: 'deleteWebhook',
      scope: 'webhooks:manage',
      request: () => ['/v1/webhooks/999999', { method: 'DELETE' }],
      allowed: 404,
    },
    {
      name: 'rotateWebhookSecret',
      scope: 'webhooks:manage',
      request: () => ['/v1/webhooks/999999/rotate-secret', { method: 'POST' }],
      allowed: 404,
    },
    {
      name: 'listWebhookDeliveries',
      scope: 'webhooks:manage',
      request: () => ['/v1/webhooks/999999/deliveries', {}],
      allowed: 404,
    },
    {
      name: 'retryWebhookDelivery',
      scope: 'webhooks:manage',
      request: () => ['/v1/webhooks/999999/deliveries/1/retry', { method: 'POST' }],
      allowed: 404,
    },
  ]

  for (const { name, scope, request, allowed } of operations) {
    it(`${name} needs ${scope}: 403 with every other scope, ${allowed} with ${scope} alone`, async () => {
      const [path, init] = request()
      const others = SCOPES.filter((candidate) => candidate !== scope)
      const refused = await server.request(path, { ...init, auth: await keyWith(others) })
      const { expected, headers } = forbidden(scope)
      await assertError(refused, expected, headers)

      const [againPath, againInit] = request()
      const accepted = await server.request(againPath, { ...againInit, auth: await keyWith([scope]) })
      assert.equal(accepted.status, allowed, await accepted.text())
    })
  }

  it('lets static keys and keys created without scopes do everything', async () => {
    const { key } = await issueApiKey(server.store, 'default scopes')
    for (const auth of [TEST_API_KEY, key]) {
      for (const { request, allowed } of operations.filter((operation) => operation.name !== 'createPet')) {
        const [path, init] = request()
        const response = await server.request(path, { ...init, auth })
        assert.equal(response.status, allowed, `${path}: ${await response.text()}`)
      }
    }
  })

  it('stores all four scopes for a key inserted without any, as the previous version inserted keys', async () => {
    await server.store.admin
      .insertInto('api_keys')
      .values({ name: 'old', key_hash: 'f'.repeat(64), key_prefix: 'pst_old0', created_at: new Date().toISOString() })
      .execute()
    const row = await server.store.admin
      .selectFrom('api_keys')
      .select(['scopes', 'expires_at'])
      .where('name', '=', 'old')
      .executeTakeFirstOrThrow()
    assert.deepEqual(row, { scopes: 'pets:read pets:write orders:read orders:write', expires_at: null })
  })

  it('checks the scope before the body is validated and before anything is written', async () => {
    const readOnly = await keyWith(['pets:read'])
    const countPets = async () => ((await (await server.request('/v1/pets?limit=100')).json()) as unknown[]).length
    const before = await countPets()
    const { expected, headers } = forbidden('pets:write')
    await assertError(await server.request('/v1/pets', { auth: readOnly, json: { name: 5 } }), expected, headers)
    await assertError(
      await server.request('/v1/pets', { auth: readOnly, json: { name: 'Sneaky', categoryId: 1 } }),
      expected,
      headers,
    )
    await assertError(
      await server.request('/v1/pets', {
        auth: readOnly,
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      }),
      expected,
      headers,
    )
    await assertError(
      await server.request(`/v1/pets/${petId}`, { auth: readOnly, method: 'PATCH', json: { name: 'Renamed' } }),
      expected,
      headers,
    )
    await assertError(
      await server.request(`/v1/pets/${petId}`, {
        auth: readOnly,
        method: 'DELETE',
        headers: { 'if-match': 'malformed' },
      }),
      expected,
      headers,
    )
    assert.equal(await countPets(), before)
    assert.equal(((await (await server.request(`/v1/pets/${petId}`)).json()) as { name: string }).name, 'Rex')
  })

  it('answers 405 and 404 as usual to a key without the scopes of the path (they need none)', async () => {
    const ordersOnly = await keyWith(['orders:read'])
    const wrongMethod = await server.request('/v1/pets', { auth: ordersOnly, method: 'DELETE' })
    assert.equal(wrongMethod.status, 405)
    assert.equal(wrongMethod.headers.get('allow'), 'GET, POST, HEAD')
    await wrongMethod.arrayBuffer()
    const unknown = await server.request('/v1/unknown', { auth: ordersOnly })
    await assertError(unknown, { status: 404, code: 'not_found', message: 'No route GET /v1/unknown.' })
  })

  it('refuses an expired key like a revoked one, and a key expiring soon from the moment it expires', async () => {
    const expired = await keyWith([...SCOPES], { expiresAt: '2020-01-01T00:00:00.000Z' })
    await assertError(await server.request('/v1/pets', { auth: expired }), INVALID, {
      'www-authenticate': INVALID_CHALLENGE,
    })

    const expiresAt = new Date(Date.now() + 1500).toISOString()
    const soon = await keyWith(['pets:read'], { expiresAt })
    assert.equal((await server.request('/v1/pets', { auth: soon })).status, 200)
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 10))
    // The documented bound is "immediately": keys are checked against the database and the clock on every request.
    await assertError(await server.request('/v1/pets', { auth: soon }), INVALID, {
      'www-authenticate': INVALID_CHALLENGE,
    })
  })

  it('refuses a scoped key as soon as it is revoked', async () => {
    const { key, row } = await issueApiKey(server.store, 'revoked reader', { scopes: ['orders:read'] })
    assert.equal((await server.request('/v1/store/orders', { auth: key })).status, 200)
    await revokeKey(server.store, row.id, new Date().toISOString())
    await assertError(await server.request('/v1/store/orders', { auth: key }), INVALID, {
      'www-authenticate': INVALID_CHALLENGE,
    })
  })
})
