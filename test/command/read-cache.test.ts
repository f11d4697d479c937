// Reads may be answered from a cache (SQLite: kept while PRAGMA data_version is unchanged): pets (with their
// versions, the ETags), pages and stored API keys. A cache is only acceptable if it is never stale: here one process
// caches answers and
// another process changes the data; the first must see every committed change on its very next request.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../helpers/error-assert.js'
import { runCli, spawnServer, type ServerProcess } from '../helpers/process.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const KEY = 'read-cache-key-0123456789'

describe(`reads stay coherent across processes on ${TEST_STORE}`, () => {
  let database: TestDatabase
  let reader: ServerProcess
  let writer: ServerProcess

  const call = (instance: ServerProcess, path: string, body?: unknown) =>
    fetch(instance.baseUrl + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })

  before(async () => {
    database = await createTestDatabase()
    const env = { DATABASE_URL: database.url, PETSTORE_API_KEYS: KEY }
    assert.equal((await runCli(['migrate'], env)).code, 0)
    ;[reader, writer] = await Promise.all([
      spawnServer({ ...env, MIGRATE_ON_START: 'false' }),
      spawnServer({ ...env, MIGRATE_ON_START: 'false' }),
    ])
  })
  after(async () => {
    for (const instance of [reader, writer]) {
      instance.child.kill('SIGTERM')
      await instance.exited
    }
    await database.drop()
  })

  it("shows another process's create, and its status changes, on the next read", async () => {
    for (let round = 0; round < 20; round++) {
      const pageBefore = await (await call(reader, '/v1/pets?limit=100&status=available')).json()
      await call(reader, '/v1/pets?limit=100&status=available') // now certainly cached
      const everyPet: { id: number }[] = await (await call(reader, '/v1/pets?limit=100')).json()
      const nextId = Math.max(0, ...everyPet.map((pet) => pet.id)) + 1
      assert.equal((await call(reader, `/v1/pets/${nextId}`)).status, 404)

      const created = await call(writer, '/v1/pets', { name: `round-${round}`, categoryId: 1 })
      assert.equal(created.status, 201)
      const pet = await created.json()

      const pageAfter = await (await call(reader, '/v1/pets?limit=100&status=available')).json()
      assert.deepEqual(pageAfter, [...pageBefore, pet])
      assert.deepEqual(await (await call(reader, `/v1/pets/${pet.id}`)).json(), pet)

      assert.equal((await call(writer, '/v1/store/orders', { petId: pet.id })).status, 201)
      assert.equal((await (await call(reader, `/v1/pets/${pet.id}`)).json()).status, 'pending')
      assert.deepEqual(await (await call(reader, '/v1/pets?limit=100&status=available')).json(), pageBefore)
    }
  })

  it("shows another process's PATCH and DELETE on the next read: the pet, its ETag, every page", async () => {
    const send = (instance: ServerProcess, path: string, method: string, body?: unknown) =>
      fetch(instance.baseUrl + path, {
        method,
        headers: {
          authorization: `Bearer ${KEY}`,
          ...(body === undefined ? {} : { 'content-type': 'application/merge-patch+json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    for (let round = 0; round < 10; round++) {
      const pet = await (
        await call(writer, '/v1/pets', { name: `kept-${round}`, categoryId: 1, status: 'sold' })
      ).json()
      const page = `/v1/pets?limit=100&status=sold`
      const read = async () => {
        const response = await call(reader, `/v1/pets/${pet.id}`)
        return { status: response.status, etag: response.headers.get('etag'), body: await response.json() }
      }
      for (let warm = 0; warm < 2; warm++) {
        assert.deepEqual(await read(), { status: 200, etag: `"${pet.id}.1"`, body: pet })
        assert.ok((await (await call(reader, page)).json()).some((listed: { id: number }) => listed.id === pet.id))
      }

      assert.equal((await send(writer, `/v1/pets/${pet.id}`, 'PATCH', { name: `renamed-${round}` })).status, 200)
      assert.deepEqual(await read(), { status: 200, etag: `"${pet.id}.2"`, body: { ...pet, name: `renamed-${round}` } })
      const unchanged = await fetch(`${reader.baseUrl}/v1/pets/${pet.id}`, {
        headers: { authorization: `Bearer ${KEY}`, 'if-none-match': `"${pet.id}.1"` },
      })
      assert.equal(unchanged.status, 200, 'the old ETag no longer matches')
      await unchanged.arrayBuffer()
      assert.deepEqual(
        (await (await call(reader, page)).json()).find((listed: { id: number }) => listed.id === pet.id),
        { ...pet, name: `renamed-${round}` },
      )

      assert.equal((await send(writer, `/v1/pets/${pet.id}`, 'DELETE')).status, 204)
      assert.equal((await read()).status, 404)
      assert.ok(!(await (await call(reader, page)).json()).some((listed: { id: number }) => listed.id === pet.id))
    }
  })

  it('refuses a stored key on the very next request after the CLI (another process) revokes it', async () => {
    const env = { DATABASE_URL: database.url }
    const created = await runCli(['keys', 'create', '--name', 'revoked-while-cached'], env)
    assert.equal(created.code, 0, created.stderr)
    const [, id, key] = /^Created key (\d+) .*: (pst_\S+)/.exec(created.stdout) ?? []
    assert.ok(id && key, created.stdout)
    const withKey = () => fetch(`${reader.baseUrl}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } })
    for (let attempt = 0; attempt < 3; attempt++) assert.equal((await withKey()).status, 200) // now certainly cached

    const revoked = await runCli(['keys', 'revoke', id], env)
    assert.equal(revoked.code, 0, revoked.stderr)
    await assertError(await withKey(), { status: 401, code: 'unauthorized', message: 'The API key is not valid.' })
  })
})
