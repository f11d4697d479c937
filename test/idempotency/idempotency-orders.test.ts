// Idempotency-Key on the order writes (placeOrder, cancelOrder, completeOrder): replays of successes and of client
// errors,
// a path that names another order being another request, concurrent duplicates, and server errors and conflicts
// lost to other changes not stored.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { assertError, IDEMPOTENCY_KEY_REUSED } from '../helpers/error-assert.js'
import { addPet, cancelRequest, readPet, storedOrderCount, storedOrdersOf } from '../helpers/orders.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { TEST_STORE } from '../helpers/store.js'

describe('Idempotency-Key on POST /v1/store/orders, DELETE /v1/store/orders/{orderId} and POST …/complete', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  const place = (key: string, body: unknown) =>
    server.request('/v1/store/orders', { json: body, headers: { 'idempotency-key': key } })
  const complete = (key: string, orderId: number) =>
    server.request(`/v1/store/orders/${orderId}/complete`, { method: 'POST', headers: { 'idempotency-key': key } })
  const cancel = (key: string, orderId: number) =>
    server.request(`/v1/store/orders/${orderId}`, { method: 'DELETE', headers: { 'idempotency-key': key } })

  it('places an order once and replays the 201 with its Location', async () => {
    const pet = await addPet(server)
    const ordersBefore = await storedOrderCount(server)
    const first = await place('place-1', { petId: pet.id, shipDate: '2026-05-01T10:00:00+02:00' })
    assert.equal(first.status, 201)
    const text = await first.text()
    const order = JSON.parse(text)
    assert.deepEqual(order, {
      id: order.id,
      petId: pet.id,
      quantity: 1,
      shipDate: '2026-05-01T08:00:00.000Z',
      complete: false,
      status: 'placed',
    })

    // Without the key this retry would be a 409 (the pet is pending now); with it, the same 201 again.
    const replay = await place('place-1', { petId: pet.id, shipDate: '2026-05-01T10:00:00+02:00', quantity: 1 })
    assert.equal(replay.status, 201)
    assert.equal(replay.headers.get('idempotent-replayed'), 'true')
    assert.equal(replay.headers.get('location'), `${server.baseUrl}/v1/store/orders/${order.id}`)
    assert.equal(replay.headers.get('location'), first.headers.get('location'))
    assert.equal(await replay.text(), text)
    assert.equal(await storedOrderCount(server), ordersBefore + 1)
    assert.equal((await readPet(server, pet.id)).status, 'pending')

    await assertError(
      await place('place-1', { petId: pet.id, shipDate: '2026-05-02T10:00:00+02:00' }),
      IDEMPOTENCY_KEY_REUSED,
    )
  })

  it('replays a client error the request got (409 conflict) even after the state has changed', async () => {
    const pet = await addPet(server)
    const taken = await (await place('place-2a', { petId: pet.id })).json()
    const conflict = {
      status: 409,
      code: 'conflict',
      message: `Pet ${pet.id} is pending; only an available pet can be ordered.`,
    }
    await assertError(await place('place-2b', { petId: pet.id }), conflict, { 'idempotent-replayed': null })
    assert.equal((await cancelRequest(server, taken.id)).status, 200)
    // The pet is available again, but a retry is the same request: it gets the same answer, and orders nothing.
    await assertError(await place('place-2b', { petId: pet.id }), conflict, { 'idempotent-replayed': 'true' })
    assert.equal((await readPet(server, pet.id)).status, 'available')
    assert.deepEqual(await storedOrdersOf(server, pet.id), [{ id: taken.id, status: 'cancelled' }])
    // A new key is a new request.
    assert.equal((await place('place-2c', { petId: pet.id })).status, 201)
  })

  it('completes an order once and replays the 200; the same key for another order is 422', async () => {
    const pet = await addPet(server)
    const order = await (await place('place-3', { petId: pet.id })).json()
    const first = await complete('complete-3', order.id)
    assert.equal(first.status, 200)
    const text = await first.text()
    assert.deepEqual(JSON.parse(text), { ...order, complete: true, status: 'completed' })

    const replay = await complete('complete-3', order.id)
    assert.equal(replay.status, 200)
    assert.equal(replay.headers.get('idempotent-replayed'), 'true')
    assert.equal(await replay.text(), text)
    assert.equal((await readPet(server, pet.id)).status, 'sold')

    const other = await (await place('place-3b', { petId: (await addPet(server)).id })).json()
    await assertError(await complete('complete-3', other.id), IDEMPOTENCY_KEY_REUSED)
    assert.deepEqual(await storedOrdersOf(server, other.petId), [{ id: other.id, status: 'placed' }])
  })

  it('cancels an order once and replays the 200 (not a 409 for the now cancelled order); another order \
is 422', async () => {
    const pet = await addPet(server)
    const order = await (await place('place-6', { petId: pet.id })).json()
    const first = await cancel('cancel-6', order.id)
    assert.equal(first.status, 200)
    assert.equal(first.headers.get('idempotent-replayed'), null)
    const text = await first.text()
    assert.deepEqual(JSON.parse(text), { ...order, status: 'cancelled' })

    // Without the key this retry would be 409 (already cancelled); with it, the first response again.
    const replay = await cancel('cancel-6', order.id)
    assert.equal(replay.status, 200)
    assert.equal(replay.headers.get('idempotent-replayed'), 'true')
    assert.equal(await replay.text(), text)
    assert.equal((await readPet(server, pet.id)).status, 'available')
    assert.deepEqual(await storedOrdersOf(server, pet.id), [{ id: order.id, status: 'cancelled' }])

    const other = await (await place('place-6b', { petId: (await addPet(server)).id })).json()
    await assertError(await cancel('cancel-6', other.id), IDEMPOTENCY_KEY_REUSED)
    assert.deepEqual(await storedOrdersOf(server, other.petId), [{ id: other.id, status: 'placed' }])
    // The same key on completeOrder for the same order is another operation: 422 too, and nothing changes.
    await assertError(await complete('cancel-6', order.id), IDEMPOTENCY_KEY_REUSED)
  })

  it('replays a cancel refused 409 (the order is completed) with Idempotent-Replayed', async () => {
    const pet = await addPet(server)
    const order = await (await place('place-7', { petId: pet.id })).json()
    assert.equal((await complete('complete-7', order.id)).status, 200)
    const refused = await cancel('cancel-7', order.id)
    assert.equal(refused.status, 409)
    const refusedBody = await refused.text()
    assert.deepEqual(JSON.parse(refusedBody), {
      code: 'conflict',
      message: `Order ${order.id} is completed; only a placed order can be cancelled.`,
      status: 409,
    })
    const again = await cancel('cancel-7', order.id)
    assert.equal(again.status, 409)
    assert.equal(again.headers.get('idempotent-replayed'), 'true')
    assert.equal(await again.text(), refusedBody)
    assert.deepEqual(await storedOrdersOf(server, pet.id), [{ id: order.id, status: 'completed' }])
  })

  it('runs 20 concurrent duplicate orders once: the others are 409 in flight or replays, never a \
conflict', async () => {
    const pet = await addPet(server)
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => place('place-4', { petId: pet.id, quantity: 2 })),
    )
    const created = responses.filter((response) => response.status === 201)
    assert.ok(created.length >= 1)
    assert.equal(new Set(await Promise.all(created.map((response) => response.text()))).size, 1)
    for (const response of responses.filter((candidate) => candidate.status !== 201)) {
      await assertError(response, {
        status: 409,
        code: 'idempotency_key_in_flight',
        message: 'A request with this Idempotency-Key is still being processed; retry later to get its response.',
      })
    }
    assert.equal((await storedOrdersOf(server, pet.id)).length, 1)
  })

  it('does not store a server error: the key is released and a retry runs the request again', async () => {
    const pet = await addPet(server)
    const order = await (await place('place-5', { petId: pet.id })).json()
    // Data changed behind the service's back: completing now fails with a 500 and rolls back.
    await server.store.admin.updateTable('pets').set({ status: 'available' }).where('id', '=', pet.id).execute()
    await assertError(await complete('complete-5', order.id), {
      status: 500,
      code: 'internal_error',
      message: 'The service failed to complete the request. Quote the X-Request-Id when reporting it.',
    })
    assert.deepEqual(
      await server.store.admin
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('idempotency_key', '=', 'complete-5')
        .execute(),
      [],
    )
    assert.deepEqual(await storedOrdersOf(server, pet.id), [{ id: order.id, status: 'placed' }])

    await server.store.admin.updateTable('pets').set({ status: 'pending' }).where('id', '=', pet.id).execute()
    const retried = await complete('complete-5', order.id)
    assert.equal(retried.status, 200)
    assert.equal(retried.headers.get('idempotent-replayed'), null)
    assert.equal((await retried.json()).status, 'completed')
  })

  it('does not store a 409 lost to other changes on every attempt: a retry with the key runs again', async () => {
    const pet = await addPet(server)
    // Every move of this pet to pending is skipped, as when other requests keep changing it first: the pet
    // still reads available after each attempt, until the order gives up.
    const skipMoves = (on: boolean) => sql.raw(on ? SKIP_MOVES[TEST_STORE](pet.id) : DROP_SKIP[TEST_STORE])
    await skipMoves(true).execute(server.store.admin)
    try {
      await assertError(await place('place-contended', { petId: pet.id }), {
        status: 409,
        code: 'conflict',
        message: `Pet ${pet.id} was changed by others 10 times while this request ran; nothing was changed. Retry.`,
      })
    } finally {
      await skipMoves(false).execute(server.store.admin)
    }
    const retried = await place('place-contended', { petId: pet.id })
    assert.equal(retried.status, 201)
    assert.equal(retried.headers.get('idempotent-replayed'), null)
    const order = await retried.json()
    assert.deepEqual(await storedOrdersOf(server, pet.id), [{ id: order.id, status: 'placed' }])
    assert.equal((await readPet(server, pet.id)).status, 'pending')
  })
})

/** A trigger that silently skips the update of one pet to pending (SQLite's RAISE(IGNORE), a row trigger's NULL). */
const SKIP_MOVES = {
  sqlite: (petId: number) =>
    `create trigger skip_moves before update of status on pets when new.id = ${petId} and new.status = 'pending' ` +
    'begin select raise(ignore); end',
  postgres: (petId: number) =>
    'create function skip_moves() returns trigger language plpgsql as $$ begin ' +
    `if new.id = ${petId} and new.status = 'pending' then return null; end if; return new; end $$; ` +
    'create trigger skip_moves before update on pets for each row execute function skip_moves()',
}
const DROP_SKIP = {
  sqlite: 'drop trigger skip_moves',
  postgres: 'drop trigger skip_moves on pets; drop function skip_moves()',
}
