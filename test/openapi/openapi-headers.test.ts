// Every header a response of the API really carries is declared in the OpenAPI document for that operation and
// status (or, for 405, in the shared MethodNotAllowed response). The real server answers each operation's
// success and the failures a client can provoke; only the headers listed in GENERIC, each with its reason, are
// left out.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { issueApiKey } from '../../src/keys/issue-key.js'
import { dereference, type OpenApiDocument } from '../helpers/fuzz-document.js'
import { MERGE_PATCH } from '../helpers/pets.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { deliveriesWhen, NO_NETWORK, type Webhook } from '../helpers/webhooks.js'

/** Headers not declared per response, and why. */
const GENERIC: Record<string, string> = {
  'content-type':
    "the media type is the key of the response's content, not a header (OpenAPI: a Content-Type header is ignored)",
  'content-length': 'message framing (RFC 9112), set by the HTTP layer',
  'transfer-encoding': 'message framing (RFC 9112), set by the HTTP layer',
  date: 'every HTTP response has it (RFC 9110 section 6.6.1)',
  connection: 'hop-by-hop (RFC 9110 section 7.6.1): a proxy removes it',
  'keep-alive': 'hop-by-hop (RFC 9110 section 7.6.1): a proxy removes it',
  'cache-control': "the same no-store on every API response, stated in the document's description",
  'x-content-type-options':
    "security hardening (nosniff) on every response, stated in the document's description; no client reads it",
  vary: 'a caching directive for intermediaries, set by the CORS layer',
}

interface DocumentedOperation {
  operationId: string
  responses: Record<string, { headers?: Record<string, unknown> }>
}

describe('every response header is declared in the OpenAPI document', () => {
  let server: TestServer
  let document: OpenApiDocument
  const operations = new Map<string, DocumentedOperation>()
  const checked = new Set<string>()
  let readOnlyKey = ''

  before(async () => {
    // Webhook endpoints name hosts out there (hooks.example.com); with no network, nothing is ever sent off loopback.
    server = await startTestServer({
      env: { RATE_LIMIT_PER_KEY: '1000', RATE_LIMIT_ANONYMOUS: '5' },
      tuning: { webhookPollIntervalMs: 50 },
      webhookNetwork: NO_NETWORK,
    })
    document = dereference(
      (await (await server.request('/v1/openapi.json', { auth: false })).json()) as OpenApiDocument,
    )
    for (const item of Object.values(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (method.startsWith('x-')) continue
        const documented = operation as DocumentedOperation
        operations.set(documented.operationId, documented)
      }
    }
    readOnlyKey = (await issueApiKey(server.store, 'headers test: read only', { scopes: ['pets:read'] })).key
  })
  after(() => server.close())

  /** Checks the headers of `response` against the document, and returns it. */
  function check(operationId: string, response: Response): Response {
    const operation = operations.get(operationId)
    assert.ok(operation, operationId)
    const status = String(response.status)
    const declared =
      response.status === 405
        ? (document.components?.responses as Record<string, { headers?: Record<string, unknown> }>).MethodNotAllowed
            ?.headers
        : operation.responses[status]?.headers
    assert.ok(response.status === 405 || operation.responses[status], `${operationId} documents ${status}`)
    const names = new Set(Object.keys(declared ?? {}).map((name) => name.toLowerCase()))
    for (const [name] of response.headers) {
      if (name in GENERIC) continue
      assert.ok(
        names.has(name),
        `${operationId} ${status} sends ${name}, which the document does not declare (declared: ` +
          `${[...names].join(', ')})`,
      )
    }
    checked.add(`${operationId} ${status}`)
    return response
  }

  async function read(response: Response): Promise<Response> {
    await response.arrayBuffer()
    return response
  }

  const json = (method: string, body: unknown, headers: Record<string, string> = {}) => ({
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

  it('on the pet operations', async () => {
    const created = check(
      'createPet',
      await server.request(
        '/v1/pets',
        json('POST', { name: 'Header', categoryId: 1 }, { 'idempotency-key': 'headers-1' }),
      ),
    )
    const pet = (await created.json()) as { id: number }
    check(
      'createPet',
      await read(
        await server.request(
          '/v1/pets',
          json('POST', { name: 'Header', categoryId: 1 }, { 'idempotency-key': 'headers-1' }),
        ),
      ),
    )
    check(
      'createPet',
      await read(
        await server.request(
          '/v1/pets',
          json('POST', { name: 'Other', categoryId: 1 }, { 'idempotency-key': 'headers-1' }),
        ),
      ),
    )
    check(
      'createPet',
      await read(await server.request('/v1/pets', json('POST', { name: 'Header', categoryId: 'one' }))),
    )
    check(
      'createPet',
      await read(
        await server.request('/v1/pets', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }),
      ),
    )
    const coded = check(
      'createPet',
      await read(
        await server.request(
          '/v1/pets',
          json('POST', { name: 'Coded', categoryId: 1 }, { 'content-encoding': 'gzip' }),
        ),
      ),
    )
    assert.equal(coded.status, 415)
    assert.equal(coded.headers.get('accept-encoding'), 'identity')
    check(
      'createPet',
      await read(await server.request('/v1/pets', json('POST', { name: 'x'.repeat(20_000), categoryId: 1 }))),
    )
    check(
      'createPet',
      await read(
        await server.request('/v1/pets', { ...json('POST', { name: 'Scope', categoryId: 1 }), auth: readOnlyKey }),
      ),
    )
    await read(await server.request('/v1/pets', json('POST', { name: 'Second', categoryId: 1 })))
    const listed = check('listPets', await read(await server.request('/v1/pets?limit=1')))
    assert.ok(listed.headers.get('link'), 'a next page')
    check('listPets', await read(await server.request('/v1/pets', { auth: false })))
    check('listPets', await read(await server.request('/v1/pets', { auth: 'pst_not-a-key-0123456789' })))
    check('listPets', await read(await server.request('/v1/pets?limit=0')))

    const got = check('getPet', await read(await server.request(`/v1/pets/${pet.id}`)))
    check(
      'getPet',
      await read(
        await server.request(`/v1/pets/${pet.id}`, { headers: { 'if-none-match': got.headers.get('etag') ?? '' } }),
      ),
    )
    check('getPet', await read(await server.request('/v1/pets/999999')))
    check('getPet', await read(await server.request('/v1/pets/0')))
    check('getPet', await read(await server.request(`/v1/pets/${pet.id}`, { auth: false })))

    const patch = (body: unknown, headers: Record<string, string> = {}) =>
      server.request(`/v1/pets/${pet.id}`, {
        method: 'PATCH',
        headers: { 'content-type': MERGE_PATCH, ...headers },
        body: JSON.stringify(body),
      })
    check('updatePet', await read(await patch({ name: 'Patched' }, { 'idempotency-key': 'headers-2' })))
    check('updatePet', await read(await patch({ name: 'Patched' }, { 'idempotency-key': 'headers-2' })))
    check('updatePet', await read(await patch({ name: 'Stale' }, { 'if-match': '"1.1"' })))
    check('updatePet', await read(await patch({ name: null })))
    check(
      'updatePet',
      await read(
        await server.request('/v1/pets/999999', {
          method: 'PATCH',
          headers: { 'content-type': MERGE_PATCH },
          body: '{"name":"x"}',
        }),
      ),
    )
    check(
      'deletePet',
      await read(await server.request(`/v1/pets/${pet.id}`, { method: 'DELETE', headers: { 'if-match': '"1.1"' } })),
    )
    check(
      'deletePet',
      await read(
        await server.request(`/v1/pets/${pet.id}`, { method: 'DELETE', headers: { 'idempotency-key': 'headers-3' } }),
      ),
    )
    check(
      'deletePet',
      await read(
        await server.request(`/v1/pets/${pet.id}`, { method: 'DELETE', headers: { 'idempotency-key': 'headers-3' } }),
      ),
    )
    check('deletePet', await read(await server.request(`/v1/pets/${pet.id}`, { method: 'DELETE' })))
    // A refusal of the change itself (404, 409, 412) is stored under its key and replayed with Idempotent-Replayed.
    const gone = { method: 'DELETE', headers: { 'idempotency-key': 'headers-gone' } }
    check('deletePet', await read(await server.request(`/v1/pets/${pet.id}`, gone)))
    const replayed = check('deletePet', await read(await server.request(`/v1/pets/${pet.id}`, gone)))
    assert.equal(replayed.status, 404)
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true')
    // 405: another method on a documented path.
    check('listPets', await read(await server.request('/v1/pets', { method: 'PUT' })))
  })

  it('on the order operations', async () => {
    const pet = (await (await server.request('/v1/pets', json('POST', { name: 'Ordered', categoryId: 1 }))).json()) as {
      id: number
    }
    const placed = check(
      'placeOrder',
      await server.request('/v1/store/orders', json('POST', { petId: pet.id }, { 'idempotency-key': 'headers-4' })),
    )
    const order = (await placed.json()) as { id: number }
    check('placeOrder', await read(await server.request('/v1/store/orders', json('POST', { petId: pet.id }))))
    check('placeOrder', await read(await server.request('/v1/store/orders', json('POST', { petId: 999999 }))))
    check('getOrder', await read(await server.request(`/v1/store/orders/${order.id}`)))
    check('getOrder', await read(await server.request('/v1/store/orders/999999')))
    check('listOrders', await read(await server.request('/v1/store/orders?limit=1')))
    check(
      'completeOrder',
      await read(
        await server.request(`/v1/store/orders/${order.id}/complete`, {
          method: 'POST',
          headers: { 'idempotency-key': 'headers-5' },
        }),
      ),
    )
    check(
      'completeOrder',
      await read(
        await server.request(`/v1/store/orders/${order.id}/complete`, {
          method: 'POST',
          headers: { 'idempotency-key': 'headers-5' },
        }),
      ),
    )
    check('cancelOrder', await read(await server.request(`/v1/store/orders/${order.id}`, { method: 'DELETE' })))
    const other = (await (
      await server.request('/v1/pets', json('POST', { name: 'Returned', categoryId: 1 }))
    ).json()) as { id: number }
    const second = (await (await server.request('/v1/store/orders', json('POST', { petId: other.id }))).json()) as {
      id: number
    }
    const cancelWithKey = { method: 'DELETE', headers: { 'idempotency-key': 'headers-cancel' } }
    check('cancelOrder', await read(await server.request(`/v1/store/orders/${second.id}`, cancelWithKey)))
    // The replay declares Idempotent-Replayed, as completeOrder's does.
    check('cancelOrder', await read(await server.request(`/v1/store/orders/${second.id}`, cancelWithKey)))
    check(
      'cancelOrder',
      await read(await server.request(`/v1/store/orders/${second.id}`, { method: 'DELETE', auth: readOnlyKey })),
    )
  })

  it('on the event operations', async () => {
    const listed = check('listEvents', await read(await server.request('/v1/events?limit=1')))
    assert.ok(listed.headers.get('link'))
    check('listEvents', await read(await server.request('/v1/events?types=pet.sold')))
    const controller = new AbortController()
    const stream = check('streamEvents', await server.request('/v1/events/stream', { signal: controller.signal }))
    assert.equal(stream.status, 200)
    assert.equal(stream.headers.get('x-accel-buffering'), 'no')
    controller.abort()
    await stream.body?.cancel().catch(() => undefined)
    check('streamEvents', await read(await server.request('/v1/events/stream?after=-1')))
    const gone = check('streamEvents', await read(await server.request(`/v1/events/stream?after=${2 ** 53 - 1}`)))
    assert.equal(gone.status, 410)
    assert.equal(gone.headers.get('x-accel-buffering'), null)
  })

  it('on the webhook operations', async () => {
    const register = (body: unknown, headers: Record<string, string> = {}) =>
      server.request('/v1/webhooks', json('POST', body, headers))
    const created = check(
      'createWebhook',
      await register(
        { url: 'https://hooks.example.com/x', types: ['pet.created'] },
        { 'idempotency-key': 'headers-6' },
      ),
    )
    assert.equal(created.status, 201)
    const webhook = (await created.json()) as Webhook
    check(
      'createWebhook',
      await read(
        await register(
          { url: 'https://hooks.example.com/x', types: ['pet.created'] },
          { 'idempotency-key': 'headers-6' },
        ),
      ),
    )
    check(
      'createWebhook',
      await read(await register({ url: 'https://hooks.example.com/other' }, { 'idempotency-key': 'headers-6' })),
    )
    check('createWebhook', await read(await register({ url: 'http://127.0.0.1/x' })))
    check(
      'createWebhook',
      await read(
        await server.request('/v1/webhooks', {
          ...json('POST', { url: 'https://hooks.example.com/y' }),
          auth: readOnlyKey,
        }),
      ),
    )
    await read(await register({ url: 'https://hooks.example.com/y' }))
    const listed = check('listWebhooks', await read(await server.request('/v1/webhooks?limit=1')))
    assert.ok(listed.headers.get('link'), 'a next page')
    check('listWebhooks', await read(await server.request('/v1/webhooks?limit=0')))
    check('getWebhook', await read(await server.request(`/v1/webhooks/${webhook.id}`)))
    check('getWebhook', await read(await server.request('/v1/webhooks/999999')))

    const patch = (id: number, body: unknown, headers: Record<string, string> = {}) =>
      server.request(`/v1/webhooks/${id}`, json('PATCH', body, headers))
    check(
      'updateWebhook',
      await read(await patch(webhook.id, { description: 'Headers' }, { 'idempotency-key': 'headers-7' })),
    )
    check(
      'updateWebhook',
      await read(await patch(webhook.id, { description: 'Headers' }, { 'idempotency-key': 'headers-7' })),
    )
    check('updateWebhook', await read(await patch(webhook.id, { secret: 'x' })))
    check('updateWebhook', await read(await patch(999999, { status: 'disabled' })))
    const rotate = (id: number, headers: Record<string, string> = {}) =>
      server.request(`/v1/webhooks/${id}/rotate-secret`, { method: 'POST', headers })
    check('rotateWebhookSecret', await read(await rotate(webhook.id, { 'idempotency-key': 'headers-8' })))
    check('rotateWebhookSecret', await read(await rotate(webhook.id, { 'idempotency-key': 'headers-8' })))
    check('rotateWebhookSecret', await read(await rotate(999999)))

    // Two events of the subscribed type: two deliveries, each attempted once (no name resolves) and then
    // waiting for a retry, so that retrying one now cannot meet an attempt in progress.
    for (const name of ['Hooked', 'Hooked again'])
      await read(await server.request('/v1/pets', json('POST', { name, categoryId: 1 })))
    const [delivery] = await deliveriesWhen(
      server,
      webhook.id,
      (deliveries) =>
        deliveries.length === 2 &&
        deliveries.every((item) => item.attempts.length === 1 && item.nextAttemptAt !== null),
    )
    assert.ok(delivery)
    const deliveries = check(
      'listWebhookDeliveries',
      await read(await server.request(`/v1/webhooks/${webhook.id}/deliveries?limit=1`)),
    )
    assert.ok(deliveries.headers.get('link'), 'a next page')
    check('listWebhookDeliveries', await read(await server.request('/v1/webhooks/999999/deliveries')))
    check(
      'listWebhookDeliveries',
      await read(await server.request(`/v1/webhooks/${webhook.id}/deliveries?status=sent`)),
    )
    const retry = (deliveryId: number, headers: Record<string, string> = {}) =>
      server.request(`/v1/webhooks/${webhook.id}/deliveries/${deliveryId}/retry`, { method: 'POST', headers })
    const retried = check(
      'retryWebhookDelivery',
      await read(await retry(delivery.id, { 'idempotency-key': 'headers-9' })),
    )
    assert.equal(retried.status, 202)
    check('retryWebhookDelivery', await read(await retry(delivery.id, { 'idempotency-key': 'headers-9' })))
    check('retryWebhookDelivery', await read(await retry(999999)))

    const remove = (id: number, headers: Record<string, string> = {}) =>
      server.request(`/v1/webhooks/${id}`, { method: 'DELETE', headers })
    check('deleteWebhook', await read(await remove(webhook.id, { 'idempotency-key': 'headers-10' })))
    check('deleteWebhook', await read(await remove(webhook.id, { 'idempotency-key': 'headers-10' })))
    check('deleteWebhook', await read(await remove(webhook.id)))
    check('listWebhooks', await read(await server.request('/v1/webhooks', { method: 'PUT' })))
  })

  it('on 429, once an address spends its anonymous quota', async () => {
    let response: Response | undefined
    for (let attempt = 0; attempt < 10 && response?.status !== 429; attempt++)
      response = await read(await server.request('/v1/pets', { auth: false }))
    assert.equal(response?.status, 429)
    check('listPets', response)
  })

  it('covered every success and the common failures', () => {
    for (const expected of [
      'listPets 200',
      'createPet 201',
      'getPet 200',
      'getPet 304',
      'updatePet 200',
      'deletePet 204',
      'listOrders 200',
      'placeOrder 201',
      'getOrder 200',
      'cancelOrder 200',
      'completeOrder 200',
      'listEvents 200',
      'streamEvents 200',
      'createWebhook 201',
      'listWebhooks 200',
      'getWebhook 200',
      'updateWebhook 200',
      'rotateWebhookSecret 200',
      'deleteWebhook 204',
      'listWebhookDeliveries 200',
      'retryWebhookDelivery 202',
      'createWebhook 400',
      'createWebhook 403',
      'getWebhook 404',
      'listWebhookDeliveries 404',
      'retryWebhookDelivery 404',
      'createWebhook 422',
      'listWebhooks 405',
      'listPets 400',
      'listPets 401',
      'createPet 403',
      'getPet 404',
      'placeOrder 409',
      'updatePet 412',
      'createPet 413',
      'createPet 415',
      'createPet 422',
      'listPets 429',
      'listPets 405',
    ]) {
      assert.ok(checked.has(expected), `${expected} was checked (checked: ${[...checked].sort().join(', ')})`)
    }
  })
})
