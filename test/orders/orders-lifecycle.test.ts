// The order lifecycle and the pet status moving with it: every valid transition, and every invalid one
// answered 409 with nothing changed, checked through the API (order, pet, both lists) and the database.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError, JSON_CONTENT_TYPE } from '../helpers/error-assert.js'
import {
  addPet,
  cancelRequest,
  completeRequest,
  finishOrder,
  listAllOrders,
  placeOrder,
  readOrder,
  readPet,
  storedOrderCount,
  storedOrdersOf,
  type Order,
  type Pet,
} from '../helpers/orders.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

describe('order lifecycle', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  async function petsWithStatus(status: Pet['status']): Promise<Pet[]> {
    const response = await server.request(`/v1/pets?status=${status}&limit=100`)
    assert.equal(response.status, 200)
    return response.json()
  }

  it('places an order: 201, Location, the whole order, and the pet becomes pending', async () => {
    const pet = await addPet(server)
    const response = await server.request('/v1/store/orders', { json: { petId: pet.id } })
    assert.equal(response.status, 201)
    assert.equal(response.headers.get('content-type'), JSON_CONTENT_TYPE)
    assert.ok(response.headers.get('x-request-id'))
    const order = await response.json()
    assert.deepEqual(order, {
      id: order.id,
      petId: pet.id,
      quantity: 1,
      shipDate: null,
      complete: false,
      status: 'placed',
    })
    assert.ok(Number.isSafeInteger(order.id) && order.id >= 1)
    assert.equal(response.headers.get('location'), `${server.baseUrl}/v1/store/orders/${order.id}`)

    assert.deepEqual(await readOrder(server, order.id), order)
    assert.deepEqual(await readPet(server, pet.id), { ...pet, status: 'pending' })
    assert.ok((await petsWithStatus('pending')).some((listed) => listed.id === pet.id))
    assert.ok(!(await petsWithStatus('available')).some((listed) => listed.id === pet.id))
    assert.deepEqual(
      (await listAllOrders(server)).filter((listed) => listed.petId === pet.id),
      [order],
    )
  })

  it('keeps quantity and returns shipDate as the same instant in UTC with milliseconds', async () => {
    const cases: [string, string][] = [
      ['2026-05-01T10:00:00+02:00', '2026-05-01T08:00:00.000Z'],
      ['2026-05-01T10:00:00.5Z', '2026-05-01T10:00:00.500Z'],
      ['2028-02-29t23:30:00.123-01:00', '2028-03-01T00:30:00.123Z'],
    ]
    for (const [given, stored] of cases) {
      const pet = await addPet(server)
      const order = await placeOrder(server, { petId: pet.id, quantity: 100, shipDate: given })
      assert.deepEqual(order, {
        id: order.id,
        petId: pet.id,
        quantity: 100,
        shipDate: stored,
        complete: false,
        status: 'placed',
      })
      assert.deepEqual(await readOrder(server, order.id), order)
    }
  })

  it('completes a placed order: complete becomes true and the pet is sold', async () => {
    const pet = await addPet(server)
    const placed = await placeOrder(server, { petId: pet.id, quantity: 2 })
    const response = await completeRequest(server, placed.id)
    assert.equal(response.status, 200)
    const completed = await response.json()
    assert.deepEqual(completed, { ...placed, complete: true, status: 'completed' })
    assert.deepEqual(await readOrder(server, placed.id), completed)
    assert.deepEqual(await readPet(server, pet.id), { ...pet, status: 'sold' })
    assert.ok((await petsWithStatus('sold')).some((listed) => listed.id === pet.id))
    assert.deepEqual(await storedOrdersOf(server, pet.id), [{ id: placed.id, status: 'completed' }])
  })

  it('cancels a placed order: it stays readable as cancelled, the pet is available and can be ordered \
again', async () => {
    const pet = await addPet(server)
    const first = await placeOrder(server, { petId: pet.id })
    const response = await cancelRequest(server, first.id)
    assert.equal(response.status, 200)
    const cancelled = await response.json()
    assert.deepEqual(cancelled, { ...first, complete: false, status: 'cancelled' })
    assert.deepEqual(await readOrder(server, first.id), cancelled)
    assert.deepEqual(await readPet(server, pet.id), pet)
    assert.ok((await petsWithStatus('available')).some((listed) => listed.id === pet.id))

    const second = await placeOrder(server, { petId: pet.id })
    assert.ok(second.id > first.id)
    assert.equal((await readPet(server, pet.id)).status, 'pending')
    const completed = await finishOrder(server, second.id, 'complete')
    assert.equal(completed.status, 'completed')
    assert.equal((await readPet(server, pet.id)).status, 'sold')
    assert.deepEqual(
      (await listAllOrders(server)).filter((listed) => listed.petId === pet.id),
      [cancelled, completed],
    )
  })

  describe('refuses every invalid transition with 409 and changes nothing', () => {
    /** Runs the refused request, then checks that neither the order nor the pet nor the order count moved. */
    async function assertRefused(
      request: () => Promise<Response>,
      message: string,
      state: { pet: Pet; order?: Order },
    ): Promise<void> {
      const countBefore = await storedOrderCount(server)
      await assertError(await request(), { status: 409, code: 'conflict', message })
      assert.deepEqual(await readPet(server, state.pet.id), state.pet)
      if (state.order) assert.deepEqual(await readOrder(server, state.order.id), state.order)
      assert.equal(await storedOrderCount(server), countBefore)
    }

    it('ordering a pet that has a placed order (pending)', async () => {
      const pet = await addPet(server)
      const order = await placeOrder(server, { petId: pet.id })
      await assertRefused(
        () => server.request('/v1/store/orders', { json: { petId: pet.id } }),
        `Pet ${pet.id} is pending; only an available pet can be ordered.`,
        { pet: { ...pet, status: 'pending' }, order },
      )
    })

    it('ordering a pet whose order was completed (sold)', async () => {
      const pet = await addPet(server)
      const order = await finishOrder(server, (await placeOrder(server, { petId: pet.id })).id, 'complete')
      await assertRefused(
        () => server.request('/v1/store/orders', { json: { petId: pet.id, quantity: 3 } }),
        `Pet ${pet.id} is sold; only an available pet can be ordered.`,
        { pet: { ...pet, status: 'sold' }, order },
      )
    })

    it('ordering pets created as pending or sold', async () => {
      for (const status of ['pending', 'sold'] as const) {
        const pet = await addPet(server, status)
        await assertRefused(
          () => server.request('/v1/store/orders', { json: { petId: pet.id } }),
          `Pet ${pet.id} is ${status}; only an available pet can be ordered.`,
          { pet },
        )
        assert.deepEqual(await storedOrdersOf(server, pet.id), [])
      }
    })

    it('cancelling or completing a completed order', async () => {
      const pet = await addPet(server)
      const order = await finishOrder(server, (await placeOrder(server, { petId: pet.id })).id, 'complete')
      const state = { pet: { ...pet, status: 'sold' as const }, order }
      await assertRefused(
        () => cancelRequest(server, order.id),
        `Order ${order.id} is completed; only a placed order can be cancelled.`,
        state,
      )
      await assertRefused(
        () => completeRequest(server, order.id),
        `Order ${order.id} is completed; only a placed order can be completed.`,
        state,
      )
    })

    it('completing or cancelling a cancelled order, also after the pet was ordered again', async () => {
      const pet = await addPet(server)
      const order = await finishOrder(server, (await placeOrder(server, { petId: pet.id })).id, 'cancel')
      await assertRefused(
        () => completeRequest(server, order.id),
        `Order ${order.id} is cancelled; only a placed order can be completed.`,
        { pet, order },
      )
      await assertRefused(
        () => cancelRequest(server, order.id),
        `Order ${order.id} is cancelled; only a placed order can be cancelled.`,
        { pet, order },
      )

      // The old order must not touch the pet's new order: completing it would sell the pet, cancelling it would free
      // it.
      const next = await placeOrder(server, { petId: pet.id })
      const state = { pet: { ...pet, status: 'pending' as const }, order: next }
      await assertRefused(
        () => completeRequest(server, order.id),
        `Order ${order.id} is cancelled; only a placed order can be completed.`,
        state,
      )
      await assertRefused(
        () => cancelRequest(server, order.id),
        `Order ${order.id} is cancelled; only a placed order can be cancelled.`,
        state,
      )
    })
  })

  it('answers 404 for an order or a pet that does not exist, and stores nothing', async () => {
    const countBefore = await storedOrderCount(server)
    for (const request of [
      () => server.request('/v1/store/orders/9007199254740991'),
      () => cancelRequest(server, 9007199254740991),
      () => completeRequest(server, 9007199254740991),
    ]) {
      await assertError(await request(), {
        status: 404,
        code: 'not_found',
        message: 'No order has id 9007199254740991.',
      })
    }
    await assertError(await server.request('/v1/store/orders', { json: { petId: 9007199254740991 } }), {
      status: 404,
      code: 'not_found',
      message: 'No pet has id 9007199254740991.',
      details: [{ path: 'body/petId', message: 'does not exist' }],
    })
    assert.equal(await storedOrderCount(server), countBefore)
  })

  it('has a database that refuses an order for a missing pet and a second placed order for a pet', async () => {
    const pet = await addPet(server)
    const order = await placeOrder(server, { petId: pet.id })
    const insert = (petId: number) =>
      server.store.admin
        .insertInto('orders')
        .values({ pet_id: petId, quantity: 1, ship_date: null, status: 'placed' })
        .execute()
    // SQLite and PostgreSQL word these differently: "FOREIGN KEY constraint failed" / "violates foreign key
    // constraint".
    await assert.rejects(insert(987_654_321), /foreign key constraint/i)
    await assert.rejects(insert(pet.id), /UNIQUE constraint failed|orders_one_placed_order_per_pet/)
    assert.deepEqual(await storedOrdersOf(server, pet.id), [{ id: order.id, status: 'placed' }])
  })

  it('asks for a key before anything else, and changes nothing for a request without one', async () => {
    const pet = await addPet(server)
    const order = await placeOrder(server, { petId: pet.id })
    const unauthorized = {
      status: 401,
      code: 'unauthorized',
      message: 'An API key is required: send Authorization: Bearer <key>.',
    }
    const requests: [string, RequestInit & { json?: unknown }][] = [
      ['/v1/store/orders', {}],
      ['/v1/store/orders?limit=0', {}],
      ['/v1/store/orders', { json: { petId: pet.id } }],
      ['/v1/store/orders', { json: { petId: 'not a number' } }],
      [`/v1/store/orders/${order.id}`, {}],
      ['/v1/store/orders/987654', {}],
      ['/v1/store/orders/abc', {}],
      [`/v1/store/orders/${order.id}`, { method: 'DELETE' }],
      [`/v1/store/orders/${order.id}/complete`, { method: 'POST' }],
      [`/v1/store/orders/${order.id}`, { method: 'PUT' }],
    ]
    for (const [path, init] of requests) {
      await assertError(await server.request(path, { ...init, auth: false }), unauthorized, {
        'www-authenticate': 'Bearer realm="petstore"',
      })
    }
    await assertError(
      await server.request(`/v1/store/orders/${order.id}/complete`, { method: 'POST', auth: 'wrong-key-0123456789' }),
      { status: 401, code: 'unauthorized', message: 'The API key is not valid.' },
    )
    assert.deepEqual(await readOrder(server, order.id), order)
    assert.equal((await readPet(server, pet.id)).status, 'pending')
  })

  it('answers other methods with 405 and Allow', async () => {
    const cases: [string, string[], string][] = [
      ['/v1/store/orders', ['PUT', 'PATCH', 'DELETE'], 'GET, POST, HEAD'],
      ['/v1/store/orders/1', ['POST', 'PUT', 'PATCH'], 'GET, DELETE, HEAD'],
      ['/v1/store/orders/1/complete', ['GET', 'PUT', 'PATCH', 'DELETE'], 'POST'],
    ]
    for (const [path, methods, allow] of cases) {
      for (const method of methods) {
        await assertError(
          await server.request(path, { method }),
          {
            status: 405,
            code: 'method_not_allowed',
            message: `${method} is not allowed on this resource; allowed: ${allow}.`,
          },
          { allow },
        )
      }
    }
  })

  it('counts order requests in /metrics by route template', async () => {
    const metrics = await (await server.request('/metrics', { auth: false })).text()
    for (const series of [
      'http_requests_total{method="POST",route="/v1/store/orders",status_code="201"}',
      'http_requests_total{method="POST",route="/v1/store/orders",status_code="409"}',
      'http_requests_total{method="DELETE",route="/v1/store/orders/:orderId",status_code="200"}',
      'http_requests_total{method="POST",route="/v1/store/orders/:orderId/complete",status_code="200"}',
      'http_requests_total{method="POST",route="/v1/store/orders/:orderId/complete",status_code="409"}',
    ]) {
      assert.match(metrics, new RegExp(`^${series.replace(/[{}()[\]./?*+^$|\\]/g, '\\$&')} [1-9]`, 'm'), series)
    }
  })
})
