// The event log survives kill -9: `petstore serve` is killed at a random moment while 30 clients create pets and
// order them; after a restart, every acknowledged change has its event (with the data it was answered with, an
// order's pet.updated right after its order.placed), every event's change is stored, and nothing stored lacks
// its event. Three kills on the store of the pass.
import assert from 'node:assert/strict'
import { Agent, request as httpRequest } from 'node:http'
import { describe, it } from 'node:test'
import { barrier, readWholeFeed, type FeedEvent } from '../helpers/events.js'
import type { Order, Pet } from '../helpers/orders.js'
import { spawnServer, type ServerProcess } from '../helpers/process.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'
import { storedRows } from '../helpers/stored-rows.js'

const KEY = 'events-crash-key-0123456789'
const ROUNDS = 3
const CLIENTS = 30

const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS * 2 })

/** The parsed 201 body, or undefined for any other answer or a connection that broke first (not acknowledged). */
function create<Body>(server: ServerProcess, path: string, body: unknown): Promise<Body | undefined> {
  const payload = JSON.stringify(body)
  return new Promise((resolve) => {
    const request = httpRequest(
      `${server.baseUrl}${path}`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve(response.statusCode === 201 ? (JSON.parse(text) as Body) : undefined))
        response.on('error', () => resolve(undefined))
        response.on('aborted', () => resolve(undefined))
      },
    )
    request.on('error', () => resolve(undefined))
    request.end(payload)
  })
}

/** Creates pets and orders each at once from CLIENTS clients until the server dies; returns what was acknowledged. */
async function burst(server: ServerProcess, round: number, onAcknowledged: (count: number) => void) {
  const pets: Pet[] = []
  const orders: Order[] = []
  let dead = false
  void server.exited.then(() => (dead = true))
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let index = 0; !dead; index++) {
        const pet = await create<Pet>(server, '/v1/pets', {
          name: `r${round} c${client} #${index}`,
          categoryId: client + 1,
        })
        if (!pet) continue
        pets.push(pet)
        const order = await create<Order>(server, '/v1/store/orders', { petId: pet.id })
        if (order) orders.push(order)
        onAcknowledged(pets.length + orders.length)
      }
    }),
  )
  return { pets, orders }
}

async function checkRound(
  database: TestDatabase,
  server: ServerProcess,
  acknowledged: { pets: Pet[]; orders: Order[] },
  context: string,
) {
  const get = (path: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${KEY}` } })
  // Everything committed before the restart is listed once a pet created now is (helpers/events.ts).
  await barrier(get)
  const events = await readWholeFeed(get)
  const created = new Map<number, FeedEvent>()
  const placed = new Map<number, [FeedEvent, FeedEvent | undefined]>()
  events.forEach((event, index) => {
    if (event.type === 'pet.created' && 'pet' in event.data) created.set(event.data.pet.id, event)
    if (event.type === 'order.placed' && 'order' in event.data)
      placed.set(event.data.order.id, [event, events[index + 1]])
  })
  for (const pet of acknowledged.pets) {
    assert.deepEqual(created.get(pet.id)?.data, { pet }, `${context}: acknowledged pet ${pet.id} has its pet.created`)
  }
  for (const order of acknowledged.orders) {
    const [event, next] = placed.get(order.id) ?? []
    assert.deepEqual(event?.data, { order }, `${context}: acknowledged order ${order.id} has its order.placed`)
    assert.equal(next?.type, 'pet.updated', `${context}: order ${order.id}'s pet.updated follows it`)
    assert.deepEqual(next && 'pet' in next.data && [next.data.pet.id, next.data.pet.status], [order.petId, 'pending'])
  }
  // Every event's change is stored, and every stored change has its event (acknowledged or not).
  const pets = await storedRows<{ id: number | string; name: string }>(
    database,
    'select id, name from pets order by id',
  )
  const orders = await storedRows<{ id: number | string; pet_id: number | string }>(
    database,
    'select id, pet_id from orders order by id',
  )
  const byId = (a: [number, unknown], b: [number, unknown]) => a[0] - b[0]
  const createdPets = [...created.values()].flatMap((event): [number, string][] =>
    'pet' in event.data ? [[event.data.pet.id, event.data.pet.name]] : [],
  )
  const placedOrders = [...placed.values()].flatMap(([event]): [number, number][] =>
    'order' in event.data ? [[event.data.order.id, event.data.order.petId]] : [],
  )
  assert.deepEqual(
    pets.map((row) => [Number(row.id), row.name]),
    createdPets.sort(byId),
    `${context}: pets and pet.created events`,
  )
  assert.deepEqual(
    orders.map((row) => [Number(row.id), Number(row.pet_id)]),
    placedOrders.sort(byId),
    `${context}: orders and order.placed events`,
  )
  return events.length
}

describe(`the event log on ${TEST_STORE} after kill -9 during a write burst`, () => {
  it(`has exactly one event for each stored change, acknowledged ones with their answers (${ROUNDS} \
kills)`, async (t) => {
    const database = await createTestDatabase()
    const env = { DATABASE_URL: database.url, PETSTORE_API_KEYS: KEY, RATE_LIMIT_PER_KEY: '1000000000' }
    let server = await spawnServer(env)
    const acknowledged = { pets: [] as Pet[], orders: [] as Order[] }
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const victim = server
        const killAfter = 100 + Math.floor(Math.random() * 400)
        const outcome = await burst(victim, round, (count) => {
          if (count >= killAfter) victim.child.kill('SIGKILL')
        })
        await victim.exited
        acknowledged.pets.push(...outcome.pets)
        acknowledged.orders.push(...outcome.orders)
        server = await spawnServer({ ...env, MIGRATE_ON_START: 'false' })
        const events = await checkRound(database, server, acknowledged, `round ${round}`)
        t.diagnostic(
          `round ${round}: killed after ${outcome.pets.length} pets and ${outcome.orders.length} orders ` +
            `acknowledged; ${events} events in all, each matching`,
        )
      }
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
      agent.destroy()
      await database.drop()
    }
  })
})
