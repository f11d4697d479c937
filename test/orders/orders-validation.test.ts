// Strict validation of the order operations: bodies, path ids and query parameters. Every refusal is a 400
// with the exact Error body, and leaves the orders table and the pet untouched.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../helpers/error-assert.js'
import { addPet, placeOrder, readOrder, readPet, storedOrderCount, type Order, type Pet } from '../helpers/orders.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

type Details = { path: string; message: string }[]
const DATE_TIME = 'must match format "date-time"'
const summary = (details: Details) =>
  `Invalid request: ${details.map((detail) => `${detail.path} ${detail.message}`).join('; ')}`

describe('order validation', () => {
  let server: TestServer
  let pet: Pet
  before(async () => {
    server = await startTestServer()
    pet = await addPet(server)
  })
  after(() => server.close())

  async function assertNothingChanged(countBefore: number): Promise<void> {
    assert.equal(await storedOrderCount(server), countBefore)
    assert.deepEqual(await readPet(server, pet.id), pet)
  }

  describe('POST /v1/store/orders refuses invalid bodies with 400', () => {
    const cases: [string, () => Record<string, unknown> | unknown[] | null, Details][] = [
      ['missing petId', () => ({ quantity: 1 }), [{ path: 'body/petId', message: 'is required' }]],
      ['empty object', () => ({}), [{ path: 'body/petId', message: 'is required' }]],
      ['petId as a string', () => ({ petId: String(pet.id) }), [{ path: 'body/petId', message: 'must be integer' }]],
      ['petId 1.5', () => ({ petId: 1.5 }), [{ path: 'body/petId', message: 'must be integer' }]],
      ['petId 0', () => ({ petId: 0 }), [{ path: 'body/petId', message: 'must be >= 1' }]],
      ['petId -1', () => ({ petId: -1 }), [{ path: 'body/petId', message: 'must be >= 1' }]],
      ['petId null', () => ({ petId: null }), [{ path: 'body/petId', message: 'must be integer' }]],
      ['petId true', () => ({ petId: true }), [{ path: 'body/petId', message: 'must be integer' }]],
      ['quantity 0', () => ({ petId: pet.id, quantity: 0 }), [{ path: 'body/quantity', message: 'must be >= 1' }]],
      ['quantity -3', () => ({ petId: pet.id, quantity: -3 }), [{ path: 'body/quantity', message: 'must be >= 1' }]],
      [
        'quantity 1.5',
        () => ({ petId: pet.id, quantity: 1.5 }),
        [{ path: 'body/quantity', message: 'must be integer' }],
      ],
      [
        'quantity "2"',
        () => ({ petId: pet.id, quantity: '2' }),
        [{ path: 'body/quantity', message: 'must be integer' }],
      ],
      [
        'quantity 101',
        () => ({ petId: pet.id, quantity: 101 }),
        [{ path: 'body/quantity', message: 'must be <= 100' }],
      ],
      [
        'quantity 2^31',
        () => ({ petId: pet.id, quantity: 2 ** 31 }),
        [{ path: 'body/quantity', message: 'must be <= 100' }],
      ],
      [
        'quantity 2^53-1',
        () => ({ petId: pet.id, quantity: Number.MAX_SAFE_INTEGER }),
        [{ path: 'body/quantity', message: 'must be <= 100' }],
      ],
      [
        'quantity null',
        () => ({ petId: pet.id, quantity: null }),
        [{ path: 'body/quantity', message: 'must be integer' }],
      ],
      [
        'shipDate 2026-02-30',
        () => ({ petId: pet.id, shipDate: '2026-02-30T10:00:00Z' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      [
        'shipDate 2026-02-29 (not a leap year)',
        () => ({ petId: pet.id, shipDate: '2026-02-29T10:00:00Z' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      [
        'shipDate month 13',
        () => ({ petId: pet.id, shipDate: '2026-13-01T10:00:00Z' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      [
        'shipDate hour 24',
        () => ({ petId: pet.id, shipDate: '2026-05-01T24:00:00Z' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      [
        'shipDate leap second',
        () => ({ petId: pet.id, shipDate: '2026-12-31T23:59:60Z' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      [
        'shipDate without offset',
        () => ({ petId: pet.id, shipDate: '2026-05-01T10:00:00' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      [
        'shipDate offset +24:00',
        () => ({ petId: pet.id, shipDate: '2026-05-01T10:00:00+24:00' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      [
        'shipDate date only',
        () => ({ petId: pet.id, shipDate: '2026-05-01' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      [
        'shipDate with a space',
        () => ({ petId: pet.id, shipDate: '2026-05-01 10:00:00Z' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      [
        'shipDate in microseconds',
        () => ({ petId: pet.id, shipDate: '2026-05-01T10:00:00.123456Z' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      [
        'shipDate beyond year 9999 in UTC',
        () => ({ petId: pet.id, shipDate: '9999-12-31T23:30:00-01:00' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      [
        'shipDate as words',
        () => ({ petId: pet.id, shipDate: 'tomorrow' }),
        [{ path: 'body/shipDate', message: DATE_TIME }],
      ],
      ['shipDate empty', () => ({ petId: pet.id, shipDate: '' }), [{ path: 'body/shipDate', message: DATE_TIME }]],
      [
        'shipDate as epoch milliseconds',
        () => ({ petId: pet.id, shipDate: 1777629600000 }),
        [{ path: 'body/shipDate', message: 'must be string' }],
      ],
      [
        'shipDate null',
        () => ({ petId: pet.id, shipDate: null }),
        [{ path: 'body/shipDate', message: 'must be string' }],
      ],
      ['a client-chosen id', () => ({ id: 5, petId: pet.id }), [{ path: 'body/id', message: 'is not allowed' }]],
      ['status', () => ({ petId: pet.id, status: 'completed' }), [{ path: 'body/status', message: 'is not allowed' }]],
      ['complete', () => ({ petId: pet.id, complete: true }), [{ path: 'body/complete', message: 'is not allowed' }]],
      [
        'several problems at once',
        () => ({ petId: '1', quantity: 0, note: 'x' }),
        [
          { path: 'body/note', message: 'is not allowed' },
          { path: 'body/petId', message: 'must be integer' },
          { path: 'body/quantity', message: 'must be >= 1' },
        ],
      ],
      ['an array', () => [{ petId: pet.id }], [{ path: 'body', message: 'must be object' }]],
      ['JSON null', () => null, [{ path: 'body', message: 'must be object' }]],
    ]
    for (const [title, body, details] of cases) {
      it(title, async () => {
        const countBefore = await storedOrderCount(server)
        const response = await server.request('/v1/store/orders', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body()),
        })
        await assertError(response, { status: 400, code: 'invalid_request', message: summary(details), details })
        await assertNothingChanged(countBefore)
      })
    }

    it('numbers that cannot be read exactly, malformed JSON, an empty body, a non-JSON body and a \
query parameter', async () => {
      const countBefore = await storedOrderCount(server)
      const post = (body: string, contentType = 'application/json') =>
        server.request('/v1/store/orders', { method: 'POST', headers: { 'content-type': contentType }, body })
      for (const literal of ['9007199254740993', '1e0', '1.0000000000000001']) {
        await assertError(await post(`{"petId":${literal}}`), {
          status: 400,
          code: 'invalid_request',
          message:
            `The number ${literal} cannot be read exactly: integers are written without fraction or exponent and ` +
            'lie between -9007199254740991 and 9007199254740991.',
          details: [{ path: 'body/petId', message: 'is a number that cannot be read exactly' }],
        })
      }
      await assertError(await post(`{"petId":${pet.id},`), {
        status: 400,
        code: 'invalid_request',
        message: 'The request body is not valid JSON.',
      })
      await assertError(await post(''), {
        status: 400,
        code: 'invalid_request',
        message: 'The request body is empty; a JSON object is required.',
      })
      await assertError(await post(`petId=${pet.id}`, 'application/x-www-form-urlencoded'), {
        status: 415,
        code: 'unsupported_media_type',
        message: 'The request body must be sent as Content-Type: application/json.',
      })
      const details = [{ path: 'query/dryRun', message: 'is not a known parameter' }]
      await assertError(await server.request('/v1/store/orders?dryRun=1', { json: { petId: pet.id } }), {
        status: 400,
        code: 'invalid_request',
        message: summary(details),
        details,
      })
      await assertNothingChanged(countBefore)
    })
  })

  describe('order ids in the path and bodiless operations', () => {
    let order: Order
    before(async () => {
      const other = await addPet(server)
      order = await placeOrder(server, { petId: other.id })
    })

    const operations: [string, (id: string, init?: RequestInit, query?: string) => Promise<Response>][] = [
      ['getOrder', (id, init, query = '') => server.request(`/v1/store/orders/${id}${query}`, init)],
      [
        'cancelOrder',
        (id, init, query = '') => server.request(`/v1/store/orders/${id}${query}`, { ...init, method: 'DELETE' }),
      ],
      [
        'completeOrder',
        (id, init, query = '') =>
          server.request(`/v1/store/orders/${id}/complete${query}`, { ...init, method: 'POST' }),
      ],
    ]
    for (const [name, call] of operations) {
      it(`${name} refuses an orderId that is not an integer from 1 to 2^53-1, and a query parameter`, async () => {
        const badIds: [string, string[]][] = [
          ['0', ['must be >= 1']],
          ['-1', ['must be >= 1']],
          ['abc', ['must be integer']],
          ['1.5', ['must be integer']],
          ['01', ['must be integer']],
          ['1e3', ['must be integer']],
          ['9007199254740992', ['must be <= 9007199254740991']],
        ]
        for (const [id, messages] of badIds) {
          const details = messages.map((message) => ({ path: 'path/orderId', message }))
          await assertError(await call(id), {
            status: 400,
            code: 'invalid_request',
            message: summary(details),
            details,
          })
        }
        const details = [{ path: 'query/force', message: 'is not a known parameter' }]
        await assertError(await call(String(order.id), {}, '?force=true'), {
          status: 400,
          code: 'invalid_request',
          message: summary(details),
          details,
        })
        assert.deepEqual(await readOrder(server, order.id), order)
      })
    }

    it('cancelOrder and completeOrder refuse a request body instead of ignoring it', async () => {
      const details = [{ path: 'body', message: 'must be absent' }]
      for (const [, call] of operations.slice(1)) {
        for (const body of ['{}', '{"complete":true}']) {
          const response = await call(String(order.id), { headers: { 'content-type': 'application/json' }, body })
          await assertError(response, {
            status: 400,
            code: 'invalid_request',
            message: 'Invalid request: this operation takes no request body.',
            details,
          })
        }
      }
      assert.deepEqual(await readOrder(server, order.id), order)
    })

    it('treats an empty body labelled application/json as no body', async () => {
      const response = await server.request(`/v1/store/orders/${order.id}`, {
        method: 'DELETE',
        headers: { 'content-type': 'application/json' },
        body: '',
      })
      assert.equal(response.status, 200)
      assert.deepEqual(await response.json(), { ...order, status: 'cancelled' })
    })

    it('treats an empty body under any other label as no body too, and still refuses one that is not \
empty', async () => {
      const placed = await placeOrder(server, { petId: (await addPet(server)).id })
      const refused = await server.request(`/v1/store/orders/${placed.id}/complete`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      })
      // Whatever its label: the operation takes no body, in any media type.
      await assertError(refused, {
        status: 400,
        code: 'invalid_request',
        message: 'Invalid request: this operation takes no request body.',
        details: [{ path: 'body', message: 'must be absent' }],
      })
      assert.deepEqual(await readOrder(server, placed.id), placed)
      // What a Java HttpURLConnection sends for a POST without a body.
      const response = await server.request(`/v1/store/orders/${placed.id}/complete`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      })
      assert.equal(response.status, 200)
      assert.deepEqual(await response.json(), { ...placed, status: 'completed', complete: true })
    })
  })
})
