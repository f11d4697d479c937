// petstore export while the service keeps writing: the file is one snapshot. Every event in it has its resource
// in it, every pet and order is there as one of its events left it (nothing half-written), and the file loads.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { petstore, shopRows } from '../helpers/move.js'
import { makeTempDir, startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, TEST_STORE } from '../helpers/store.js'

const WRITERS = 3
/** Pets created before the export starts, so that it meets a shop with history. */
const PETS_BEFORE_EXPORT = 30

interface EventData {
  pet?: { id: number; name: string; status: string }
  order?: { id: number; petId: number; status: string }
}

describe(`petstore export while the service writes (${TEST_STORE})`, () => {
  let server: TestServer
  const directory = makeTempDir()

  before(async () => {
    server = await startTestServer()
  })
  after(async () => {
    await server.close()
  })

  it('writes one consistent snapshot', async () => {
    let writing = true
    let created = 0
    const writer = async (number: number) => {
      for (let turn = 0; writing; turn++) {
        const response = await server.request('/v1/pets', {
          json: { name: `w${number}-${turn}`, categoryId: number + 1 },
        })
        assert.equal(response.status, 201)
        const pet = (await response.json()) as { id: number }
        created++
        const order = await server.request('/v1/store/orders', { json: { petId: pet.id } })
        assert.equal(order.status, 201)
      }
    }
    const writers = Array.from({ length: WRITERS }, (_, number) => writer(number))
    while (created < PETS_BEFORE_EXPORT) await new Promise((resolve) => setTimeout(resolve, 10))
    const file = join(directory, 'during-writes.jsonl')
    const exported = await petstore(['export', file], {
      DATABASE_URL:
        server.config.database.kind === 'sqlite' ? `file:${server.config.database.path}` : server.config.database.url,
    })
    writing = false
    await Promise.all(writers)
    assert.equal(exported.code, 0, exported.stderr)

    const pets = new Map(shopRows(file, 'pets').map((row) => [row.id as number, row]))
    const orders = new Map(shopRows(file, 'orders').map((row) => [row.id as number, row]))
    const events = shopRows(file, 'events').map((row) => JSON.parse(row.data as string) as EventData)
    assert.ok(pets.size >= PETS_BEFORE_EXPORT)
    const petStates = new Set<string>()
    const orderIds = new Set<number>()
    for (const data of events) {
      if (data.pet) {
        assert.ok(pets.has(data.pet.id), `pet ${data.pet.id} of an event is in the file`)
        petStates.add(`${data.pet.id} ${data.pet.name} ${data.pet.status}`)
      }
      if (data.order) {
        assert.ok(orders.has(data.order.id), `order ${data.order.id} of an event is in the file`)
        orderIds.add(data.order.id)
      }
    }
    for (const pet of pets.values())
      assert.ok(petStates.has(`${pet.id} ${pet.name} ${pet.status}`), `pet ${pet.id} is as one of its events left it`)
    for (const order of orders.values()) {
      assert.ok(orderIds.has(order.id as number), `order ${order.id} has its event`)
      assert.equal(pets.get(order.pet_id as number)?.status, 'pending', `order ${order.id}'s pet is pending`)
    }

    const target = await createTestDatabase()
    try {
      const imported = await petstore(['import', file], { DATABASE_URL: target.url })
      assert.equal(imported.code, 0, imported.stderr)
    } finally {
      await target.drop()
    }
  })
})
