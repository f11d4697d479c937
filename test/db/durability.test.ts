import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { spawnServer } from '../helpers/process.js'
import { collectPages } from '../helpers/link.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const KEY = 'durability-key-0123456789'

interface Pet {
  id: number
  name: string
  categoryId: number
  status: string
}

describe(`durability on ${TEST_STORE}`, () => {
  let database: TestDatabase
  let env: Record<string, string>
  before(async () => {
    database = await createTestDatabase()
    env = { DATABASE_URL: database.url, PETSTORE_API_KEYS: KEY }
  })
  after(() => database.drop())

  it('keeps every acknowledged pet through kill -9, and never reuses an id', async () => {
    const acknowledged: Pet[] = []
    for (let round = 0; round < 3; round++) {
      const server = await spawnServer(env)
      let stop = false
      const clients = Array.from({ length: 20 }, async (_, client) => {
        for (let index = 0; !stop; index++) {
          try {
            const response = await fetch(`${server.baseUrl}/v1/pets`, {
              method: 'POST',
              headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
              body: JSON.stringify({ name: `r${round}-c${client}-${index}`, categoryId: client + 1 }),
            })
            if (response.status === 201) acknowledged.push(await response.json())
          } catch {
            return // the server was killed mid-request: that write was never acknowledged
          }
        }
      })
      // Killed mid-burst: once this round has had some writes acknowledged (however loaded the machine is),
      // and a little later in each round, so the kill falls at different points of a batch.
      const before = acknowledged.length
      const deadline = Date.now() + 15_000
      while (acknowledged.length < before + 15 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10))
      await new Promise((resolve) => setTimeout(resolve, round * 50))
      server.child.kill('SIGKILL')
      stop = true
      await Promise.all(clients)
      await server.exited
    }
    assert.ok(acknowledged.length > 30, `only ${acknowledged.length} creates were acknowledged`)

    if (TEST_STORE === 'sqlite') {
      const handle = new SqliteDatabase(database.url.replace(/^file:/, ''))
      assert.equal(handle.pragma('integrity_check', { simple: true }), 'ok')
      handle.close()
    }

    const server = await spawnServer(env)
    try {
      const pets = await collectPages<Pet>(
        (path) => fetch(server.baseUrl + path, { headers: { authorization: `Bearer ${KEY}` } }),
        '/v1/pets?limit=100',
      )
      const stored = new Map(pets.map((pet) => [pet.id, pet]))
      for (const pet of acknowledged) assert.deepEqual(stored.get(pet.id), pet)

      const highest = Math.max(...stored.keys())
      const response = await fetch(`${server.baseUrl}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'after-restart', categoryId: 1 }),
      })
      assert.equal(response.status, 201)
      assert.ok((await response.json()).id > highest)
    } finally {
      server.child.kill('SIGTERM')
      assert.equal(await server.exited, 0)
    }
  })
})
