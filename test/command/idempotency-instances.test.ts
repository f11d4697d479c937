// Idempotency-Key across two `petstore serve` processes sharing one database (PostgreSQL in the PostgreSQL
// pass; the SQLite file in the other): nothing about a key lives in an instance's memory.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError, IDEMPOTENCY_KEY_REUSED } from '../helpers/error-assert.js'
import { runCli, spawnServer, type ServerProcess } from '../helpers/process.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const KEY = 'idempotency-instances-key-0123'

describe(`Idempotency-Key across two instances on one ${TEST_STORE} database`, () => {
  let database: TestDatabase
  let instances: ServerProcess[] = []

  before(async () => {
    database = await createTestDatabase()
    const env = { DATABASE_URL: database.url, PETSTORE_API_KEYS: KEY }
    const migrated = await runCli(['migrate'], env)
    assert.equal(migrated.code, 0, migrated.stderr)
    instances = await Promise.all([0, 1].map(() => spawnServer({ ...env, MIGRATE_ON_START: 'false' })))
  })

  after(async () => {
    for (const instance of instances) {
      instance.child.kill('SIGTERM')
      assert.equal(await instance.exited, 0, instance.output())
    }
    await database?.drop()
  })

  const instance = (index: number) => {
    const found = instances[index % instances.length]
    assert.ok(found)
    return found
  }

  const createPet = (index: number, key: string, body: unknown) =>
    fetch(`${instance(index).baseUrl}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    })

  async function listNamed(name: string): Promise<unknown[]> {
    const response = await fetch(`${instance(0).baseUrl}/v1/pets?limit=100`, {
      headers: { authorization: `Bearer ${KEY}` },
    })
    return ((await response.json()) as { name: string }[]).filter((pet) => pet.name === name)
  }

  it('replays on one instance the response stored by the other, and refuses a different body there', async () => {
    const first = await createPet(0, 'across-1', { name: 'Across', categoryId: 2 })
    assert.equal(first.status, 201)
    const text = await first.text()
    const replay = await createPet(1, 'across-1', { name: 'Across', categoryId: 2 })
    assert.equal(replay.status, 201)
    assert.equal(replay.headers.get('idempotent-replayed'), 'true')
    assert.equal(replay.headers.get('location'), first.headers.get('location'))
    assert.equal(await replay.text(), text)
    const mismatch = await createPet(1, 'across-1', { name: 'Across', categoryId: 3 })
    await assertError(mismatch, IDEMPOTENCY_KEY_REUSED)
    assert.equal((await listNamed('Across')).length, 1)
  })

  it('runs duplicates sent to both instances at once exactly once', async () => {
    for (let round = 0; round < 5; round++) {
      const key = `across-concurrent-${round}`
      const name = `Concurrent ${round}`
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) => createPet(index, key, { name, categoryId: 1 })),
      )
      const statuses = responses.map((response) => response.status)
      assert.ok(
        statuses.every((status) => status === 201 || status === 409),
        `statuses ${statuses.join(' ')}`,
      )
      const created = new Set(
        await Promise.all(responses.filter((response) => response.status === 201).map((response) => response.text())),
      )
      assert.equal(created.size, 1, 'every 201 is the same response')
      assert.equal((await listNamed(name)).length, 1)
    }
  })
})
