// The event log's ids are the service's own: consecutive integers, each event once, across instances, whatever
// else runs on the database server, and after kill -9 of an instance mid-burst. Two `petstore serve` processes on
// one database, as in production.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { followUntil, readFeed, readWholeFeed, type FeedEvent, type Get } from '../helpers/events.js'
import { instancesForSuite, startInstances, stopInstances } from '../helpers/instances.js'
import type { Order, Pet } from '../helpers/orders.js'
import type { ServerProcess } from '../helpers/process.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'
import { WebhookReceiver } from '../helpers/webhook-receiver.js'
import { LOOPBACK_WEBHOOKS, registerWebhook } from '../helpers/webhooks.js'

const KEY = 'events-numbering-static-key-0123'
const CLIENTS = 40

function client(instance: ServerProcess) {
  const request = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init
    return fetch(instance.baseUrl + path, {
      ...rest,
      ...(json === undefined ? {} : { method: rest.method ?? 'POST', body: JSON.stringify(json) }),
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    })
  }
  const get: Get = (path, init) => request(path, init)
  return { request, get }
}

/** The body of a 201, or undefined when the change was not acknowledged (the instance died first). */
async function created<Body>(instance: ServerProcess, path: string, json: unknown): Promise<Body | undefined> {
  try {
    const response = await client(instance).request(path, { json })
    const text = await response.text()
    return response.status === 201 ? (JSON.parse(text) as Body) : undefined
  } catch {
    return undefined
  }
}

interface Acknowledged {
  pets: Pet[]
  orders: Order[]
}

/** `clients` clients, each creating a pet and ordering it, on the instances in turn, until `until` holds. */
async function burst(instances: readonly ServerProcess[], clients: number, until: () => boolean) {
  const acknowledged: Acknowledged = { pets: [], orders: [] }
  await Promise.all(
    Array.from({ length: clients }, async (_, index) => {
      for (let round = 0; !until(); round++) {
        const instance = instances[(index + round) % instances.length]
        assert.ok(instance)
        const pet = await created<Pet>(instance, '/v1/pets', { name: `c${index} #${round}`, categoryId: index + 1 })
        if (!pet) continue
        acknowledged.pets.push(pet)
        const order = await created<Order>(instance, '/v1/store/orders', { petId: pet.id })
        if (order) acknowledged.orders.push(order)
      }
    }),
  )
  return acknowledged
}

/**
 * The events after `start` are consecutive ids, each change's event once: a pet.created per pet, an order.placed
 * per order followed by its pet.updated; every acknowledged change is among them.
 */
function checkConsecutive(events: readonly FeedEvent[], start: number, acknowledged: Acknowledged): void {
  assert.deepEqual(
    events.map((event) => event.id),
    events.map((_, index) => start + 1 + index),
    'ids strictly consecutive',
  )
  const createdPets = events.flatMap((event) => (event.type === 'pet.created' && 'pet' in event.data ? [event] : []))
  const placed = events.flatMap((event, index) =>
    event.type === 'order.placed' && 'order' in event.data ? [[event, events[index + 1]] as const] : [],
  )
  const petIds = createdPets.map((event) => ('pet' in event.data ? event.data.pet.id : 0))
  const orderIds = placed.map(([event]) => ('order' in event.data ? event.data.order.id : 0))
  assert.equal(new Set(petIds).size, petIds.length, 'one pet.created per pet')
  assert.equal(new Set(orderIds).size, orderIds.length, 'one order.placed per order')
  for (const pet of acknowledged.pets) assert.ok(petIds.includes(pet.id), `pet ${pet.id} has its pet.created`)
  for (const order of acknowledged.orders) {
    const found = placed.find(([event]) => 'order' in event.data && event.data.order.id === order.id)
    assert.deepEqual(found?.[0].data, { order }, `order ${order.id} has its order.placed`)
    assert.equal(found?.[1]?.type, 'pet.updated', `order ${order.id}'s pet.updated follows it`)
  }
  assert.equal(events.length, petIds.length + 2 * orderIds.length, 'no other event')
}

/** The newest event id, read through `get`. */
async function newestId(get: Get): Promise<number> {
  const events = await readWholeFeed(get)
  return events.at(-1)?.id ?? 0
}

describe(`consecutive event ids across two instances on ${TEST_STORE}`, () => {
  const suite = instancesForSuite({ PETSTORE_API_KEYS: KEY })

  it(`${CLIENTS} clients creating and ordering at once: ids strictly consecutive, each event once, on \
both`, async () => {
    const { instances } = suite
    const [first, second] = instances.map(client)
    assert.ok(first && second)
    const start = await newestId(first.get)
    let changes = 0
    const acknowledged = await burst(instances, CLIENTS, () => changes++ >= 200)
    assert.ok(acknowledged.pets.length >= CLIENTS)
    const expected = acknowledged.pets.length + 2 * acknowledged.orders.length
    const lastId = start + expected
    const fromFirst = await followUntil(first.get, start, (event) => event.id === lastId)
    checkConsecutive(fromFirst, start, acknowledged)
    assert.deepEqual(await readWholeFeed(second.get, start), fromFirst, 'the other instance lists the same events')
  })
})

describe(`kill -9 of one of two instances during a burst on ${TEST_STORE}`, () => {
  const suite = instancesForSuite({ PETSTORE_API_KEYS: KEY })

  it('every acknowledged change has its event, ids stay consecutive, and the survivor keeps up', async (t) => {
    const { instances } = suite
    const [victim, survivor] = instances
    assert.ok(victim && survivor)
    const { get } = client(survivor)
    const start = await newestId(get)
    // A reader following the survivor's feed from the start, with long polls, all along, until `through`.
    const followed: FeedEvent[] = []
    const end: { through?: number } = {}
    const following = (async () => {
      for (let position = start; end.through === undefined || position < end.through;) {
        const page = await readFeed(get, `after=${position}&limit=1000&wait=1`)
        followed.push(...page.events)
        position = page.nextAfter
      }
    })()
    let killed = false
    let afterKill = 0
    const acknowledged = await burst(instances, CLIENTS, () => {
      if (!killed && Math.random() < 0.01) {
        killed = true
        victim.child.kill('SIGKILL')
      }
      return killed && afterKill++ > 300
    })
    await victim.exited
    const expected = acknowledged.pets.length + 2 * acknowledged.orders.length
    // Changes the victim committed without answering have their events too: the feed may hold more, and every
    // one of them is numbered by the survivor's numberings after its own commits.
    const events = await followUntil(get, start, (event) => event.id >= start + expected)
    const all = [...events, ...(await readWholeFeed(get, events.at(-1)?.id ?? start))]
    checkConsecutive(all, start, acknowledged)
    t.diagnostic(
      `${acknowledged.pets.length} pets and ${acknowledged.orders.length} orders acknowledged; ${all.length} events`,
    )
    end.through = all.at(-1)?.id ?? start
    await following
    assert.deepEqual(
      followed.map((event) => event.id),
      all.map((event) => event.id),
      'the reader following the survivor received every event once, in order',
    )
  })
})

describe(
  'nothing outside the service delays the feed (PostgreSQL)',
  { skip: TEST_STORE === 'sqlite' ? 'SQLite has one writer: another transaction would hold back the write' : false },
  () => {
    let database: TestDatabase
    let instances: ServerProcess[] = []
    let receiver: WebhookReceiver
    const otherDatabase = `petstore_other_${process.pid}_${Date.now()}`
    const serverUrl = process.env.TEST_DATABASE_URL ?? ''

    const connect = async (url: string) => {
      const connection = new pg.Client({ connectionString: url })
      await connection.connect()
      return connection
    }

    before(async () => {
      database = await createTestDatabase()
      instances = await startInstances(database, { PETSTORE_API_KEYS: KEY, ...LOOPBACK_WEBHOOKS })
      receiver = await WebhookReceiver.start()
      await registerWebhook(client(instances[0] as ServerProcess), receiver, { types: ['pet.created'] })
      const admin = await connect(serverUrl)
      await admin.query(`create database ${otherDatabase}`)
      await admin.end()
    })
    after(async () => {
      await stopInstances(instances)
      await receiver?.close()
      const admin = await connect(serverUrl)
      await admin.query(`drop database if exists ${otherDatabase}`)
      await admin.end()
      await database?.drop()
    })

    /** A write transaction left open (as in a forgotten psql session) on `url`, in a table of its own. */
    async function openWriteTransaction(url: string, table: string) {
      const connection = await connect(url)
      await connection.query(`create table ${table} (value integer)`)
      await connection.query('begin')
      await connection.query(`insert into ${table} values (1)`)
      return {
        async end() {
          await connection.query('rollback')
          await connection.end()
        },
      }
    }

    for (const where of ['another database', 'another table of the same database'] as const) {
      it(`while a write transaction stays open in ${where}, a create's event reaches a long poll on the other instance \
within a second, and its webhook is delivered`, async () => {
        const [writer, reader] = instances.map(client)
        assert.ok(writer && reader)
        const start = await newestId(reader.get)
        const url =
          where === 'another database'
            ? Object.assign(new URL(serverUrl), { pathname: `/${otherDatabase}` }).toString()
            : database.url
        const open = await openWriteTransaction(url, where === 'another database' ? 'elsewhere' : 'beside_events')
        try {
          const waiting = readFeed(reader.get, `after=${start}&wait=1`)
          const response = await writer.request('/v1/pets', { json: { name: where, categoryId: 1 } })
          assert.equal(response.status, 201)
          const pet = (await response.json()) as Pet
          const { events } = await waiting
          assert.deepEqual(
            events.map((event) => [event.id, event.type, event.data]),
            [[start + 1, 'pet.created', { pet }]],
          )
          await receiver.until(() => receiver.received.some((delivery) => delivery.webhookId === `evt_${start + 1}`))
          const delivery = receiver.received.find((received) => received.webhookId === `evt_${start + 1}`)
          assert.deepEqual(JSON.parse(delivery?.body ?? '{}'), events[0])
        } finally {
          await open.end()
        }
      })
    }
  },
)
