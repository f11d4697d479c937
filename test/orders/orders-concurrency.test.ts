// Races: many clients ordering the same pet, cancelling and completing the same order, all at once, from one
// instance and from two processes on the same database. Exactly one wins each race, the losers get 409, and
// every pet ends in the state its orders imply.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  addPet,
  cancelRequest,
  completeRequest,
  impliedPetStatus,
  listAllOrders,
  placeOrder,
  readOrder,
  readPet,
  storedOrdersOf,
  type Order,
  type Pet,
} from '../helpers/orders.js'
import { runCli, spawnServer, type ServerProcess } from '../helpers/process.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const RACERS = 60

async function bodies(responses: Response[]): Promise<{ status: number; body: unknown }[]> {
  return Promise.all(responses.map(async (response) => ({ status: response.status, body: await response.json() })))
}

/** Exactly one 201 among the answers, every other one the exact 409 for a pending pet; returns the order. */
function assertOneOrderPlaced(results: { status: number; body: unknown }[], petId: number): Order {
  const winners = results.filter((result) => result.status === 201)
  assert.equal(winners.length, 1, `statuses: ${results.map((result) => result.status).join(',')}`)
  const conflict = {
    code: 'conflict',
    message: `Pet ${petId} is pending; only an available pet can be ordered.`,
    status: 409,
  }
  for (const result of results.filter((candidate) => candidate.status !== 201))
    assert.deepEqual(result, { status: 409, body: conflict })
  return winners[0]?.body as Order
}

describe(`order races on ${TEST_STORE}`, () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it(`${RACERS} concurrent orders for one pet: one 201, ${RACERS - 1} × 409, the pet pending, one \
order stored`, async () => {
    const pet = await addPet(server)
    const responses = await Promise.all(
      Array.from({ length: RACERS }, (_, index) =>
        server.request('/v1/store/orders', { json: { petId: pet.id, quantity: (index % 100) + 1 } }),
      ),
    )
    const order = assertOneOrderPlaced(await bodies(responses), pet.id)
    assert.deepEqual(order, {
      id: order.id,
      petId: pet.id,
      quantity: order.quantity,
      shipDate: null,
      complete: false,
      status: 'placed',
    })
    assert.deepEqual(await readPet(server, pet.id), { ...pet, status: 'pending' })
    assert.deepEqual(await storedOrdersOf(server, pet.id), [{ id: order.id, status: 'placed' }])
    assert.deepEqual(
      (await listAllOrders(server)).filter((listed) => listed.petId === pet.id),
      [order],
    )
  })

  it('10 pets raced for at once, 10 clients each: one order per pet', async () => {
    const pets = await Promise.all(
      Array.from({ length: 10 }, (_, index) => addPet(server, 'available', `raced-${index}`)),
    )
    const requests = pets.flatMap((pet) =>
      Array.from({ length: 10 }, () => ({
        pet,
        response: server.request('/v1/store/orders', { json: { petId: pet.id } }),
      })),
    )
    for (const pet of pets) {
      const mine = await bodies(
        await Promise.all(requests.filter((request) => request.pet === pet).map((request) => request.response)),
      )
      const order = assertOneOrderPlaced(mine, pet.id)
      assert.deepEqual(await storedOrdersOf(server, pet.id), [{ id: order.id, status: 'placed' }])
      assert.equal((await readPet(server, pet.id)).status, 'pending')
    }
  })

  it('cancel and complete of the same order at once: exactly one wins and the order and pet agree', async () => {
    for (let round = 0; round < 6; round++) {
      const pet = await addPet(server)
      const order = await placeOrder(server, { petId: pet.id })
      // Interleaved, and which kind goes first alternates between rounds.
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          (index + round) % 2 === 0 ? cancelRequest(server, order.id) : completeRequest(server, order.id),
        ),
      )
      const results = await bodies(responses)
      const winners = results.filter((result) => result.status === 200)
      assert.equal(winners.length, 1, `statuses: ${results.map((result) => result.status).join(',')}`)
      const final = await readOrder(server, order.id)
      assert.deepEqual(winners[0]?.body, final)
      const expectedPet = final.status === 'completed' ? 'sold' : 'available'
      assert.deepEqual(final, {
        ...order,
        complete: final.status === 'completed',
        status: final.status === 'completed' ? 'completed' : 'cancelled',
      })
      assert.deepEqual(await readPet(server, pet.id), { ...pet, status: expectedPet })
      for (const [index, result] of results.entries()) {
        if (result.status === 200) continue
        const verb = (index + round) % 2 === 0 ? 'cancelled' : 'completed'
        assert.deepEqual(result, {
          status: 409,
          body: {
            code: 'conflict',
            message: `Order ${order.id} is ${final.status}; only a placed order can be ${verb}.`,
            status: 409,
          },
        })
      }
    }
  })

  it('orders racing the cancel of the pet’s order either place the next order or find the pet pending, never \
refused as available', async () => {
    const pet = await addPet(server)
    let order = await placeOrder(server, { petId: pet.id })
    for (let round = 0; round < 20; round++) {
      const [cancelled, ...places] = await Promise.all([
        cancelRequest(server, order.id),
        ...Array.from({ length: 5 }, () => server.request('/v1/store/orders', { json: { petId: pet.id } })),
      ])
      assert.equal(cancelled?.status, 200)
      const results = await bodies(places)
      // Each order is decided before the cancel (the pet is pending: 409) or after it (the pet is available: the
      // first of them gets it, the rest find it pending again). A 409 saying the pet is available is neither.
      const winners = results.filter((result) => result.status === 201)
      assert.ok(winners.length <= 1, `statuses: ${results.map((result) => result.status).join(',')}`)
      const pending = `Pet ${pet.id} is pending; only an available pet can be ordered.`
      for (const result of results.filter((candidate) => candidate.status !== 201))
        assert.deepEqual(result, { status: 409, body: { code: 'conflict', message: pending, status: 409 } })
      order = (winners[0]?.body as Order | undefined) ?? (await placeOrder(server, { petId: pet.id }))
      assert.equal((await readPet(server, pet.id)).status, 'pending')
    }
  })

  it('a storm of places, cancels and completes on a few pets leaves every pet in a state its orders \
imply', async () => {
    const pets: Pet[] = await Promise.all(
      Array.from({ length: 6 }, (_, index) => addPet(server, 'available', `storm-${index}`)),
    )
    const known = new Map<number, number[]>(pets.map((pet) => [pet.id, []]))
    for (let round = 0; round < 6; round++) {
      const requests: Promise<Response>[] = []
      for (const pet of pets) {
        for (let client = 0; client < 4; client++)
          requests.push(server.request('/v1/store/orders', { json: { petId: pet.id } }))
        for (const orderId of known.get(pet.id) ?? []) {
          requests.push(round % 2 === 0 ? cancelRequest(server, orderId) : completeRequest(server, orderId))
          requests.push(round % 3 === 0 ? completeRequest(server, orderId) : cancelRequest(server, orderId))
        }
      }
      for (const { status, body } of await bodies(await Promise.all(requests))) {
        assert.ok([200, 201, 409].includes(status), `unexpected ${status}: ${JSON.stringify(body)}`)
        if (status === 201) known.get((body as Order).petId)?.push((body as Order).id)
      }
    }
    for (const pet of pets) {
      const stored = await storedOrdersOf(server, pet.id)
      assert.deepEqual(
        stored.map((order) => order.id),
        known.get(pet.id),
      )
      assert.equal((await readPet(server, pet.id)).status, impliedPetStatus('available', stored))
    }
  })
})

describe(`order races across two processes on one ${TEST_STORE} database`, () => {
  const KEY = 'orders-race-static-key-0123456789'
  let database: TestDatabase
  let instances: ServerProcess[] = []
  const call = (instance: ServerProcess | undefined, path: string, init: RequestInit = {}) =>
    fetch(`${instance?.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    })

  before(async () => {
    database = await createTestDatabase()
    const env = { DATABASE_URL: database.url, PETSTORE_API_KEYS: KEY, LOG_LEVEL: 'warn' }
    const migrated = await runCli(['migrate'], env)
    assert.equal(migrated.code, 0, migrated.stderr)
    instances = await Promise.all([
      spawnServer({ ...env, MIGRATE_ON_START: 'false' }),
      spawnServer({ ...env, MIGRATE_ON_START: 'false' }),
    ])
  })
  after(async () => {
    for (const instance of instances) {
      instance.child.kill('SIGTERM')
      assert.equal(await instance.exited, 0, instance.output())
    }
    await database?.drop()
  })

  it(`${RACERS} concurrent orders for one pet, split over both processes: exactly one is placed`, async () => {
    for (let round = 0; round < 3; round++) {
      const created = await call(instances[0], '/v1/pets', {
        method: 'POST',
        body: JSON.stringify({ name: `shared-${round}`, categoryId: 1 }),
      })
      assert.equal(created.status, 201)
      const pet: Pet = await created.json()
      const responses = await Promise.all(
        Array.from({ length: RACERS }, (_, index) =>
          call(instances[index % 2], '/v1/store/orders', { method: 'POST', body: JSON.stringify({ petId: pet.id }) }),
        ),
      )
      const order = assertOneOrderPlaced(await bodies(responses), pet.id)

      // Then both processes race to finish it, one cancelling and the other completing.
      const finishes = await bodies(
        await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            index % 2 === 0
              ? call(instances[0], `/v1/store/orders/${order.id}`, { method: 'DELETE' })
              : call(instances[1], `/v1/store/orders/${order.id}/complete`, { method: 'POST' }),
          ),
        ),
      )
      assert.equal(finishes.filter((result) => result.status === 200).length, 1)
      assert.ok(finishes.every((result) => result.status === 200 || result.status === 409))
      const final: Order = await (await call(instances[1], `/v1/store/orders/${order.id}`)).json()
      const petNow: Pet = await (await call(instances[0], `/v1/pets/${pet.id}`)).json()
      assert.equal(petNow.status, final.status === 'completed' ? 'sold' : 'available')
    }
  })
})
