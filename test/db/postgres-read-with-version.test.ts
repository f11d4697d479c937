// On PostgreSQL a read that misses the cache, and that the cache would keep, is sent with the data version in one
// round trip (src/db/postgres-data-version.ts, VersionedCache.getFresh): no version read waits before the query,
// and the answer is kept under the version read just before it. A pet's first load is not kept, and goes without
// the version. What must still hold: the version is read before the query, so nothing is kept under a version
// older than its rows claim; and a write by another instance between two reads is seen by the second read,
// whether the first one missed the cache or was answered from it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import { postgresPetReads } from '../../src/pets/pet-reads.postgres.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

type Pet = { id: number; name: string; categoryId: number; status: string }

describe('PostgreSQL reads sent with the data version', () => {
  let database: TestDatabase
  let reader: TestServer
  let writer: TestServer
  let observer: pg.Client

  before(async () => {
    database = await createTestDatabase('postgres')
    reader = await startTestServer({ database })
    writer = await startTestServer({ database })
    observer = new pg.Client({ connectionString: database.url })
    await observer.connect()
  })
  after(async () => {
    await observer?.end()
    await reader?.close()
    await writer?.close()
    await database?.drop()
  })

  const dataVersion = async () =>
    Number((await observer.query('select sum(version) as version from data_version')).rows[0].version)
  const create = async (name: string): Promise<Pet> => {
    const response = await writer.request('/v1/pets', { json: { name, categoryId: 2 } })
    assert.equal(response.status, 201)
    return response.json()
  }
  const rename = async (id: number, name: string) => {
    const response = await writer.request(`/v1/pets/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ name }),
    })
    assert.equal(response.status, 200)
  }
  const read = async (path: string) => {
    const response = await reader.request(path)
    return { status: response.status, body: await response.json() }
  }

  it('reads the version before the query, on the same connection', async () => {
    const readWithVersion = reader.store.readWithVersion
    assert.ok(readWithVersion, 'a PostgreSQL store reads with the version')
    // A statement that itself raises the version (every statement on pets does, by its trigger): the version
    // sent with it must be the one from before it ran.
    const initial = await dataVersion()
    const touch = sql<{ id: number }>`update pets set name = name where id = -1 returning id`.compile(
      reader.store.admin,
    )
    const { rows, version } = await readWithVersion(touch, true)
    assert.deepEqual(rows, [])
    assert.equal(version, initial)
    assert.equal(await dataVersion(), initial + 1)
    const second = await readWithVersion(touch, true)
    assert.equal(second.version, initial + 1)
  })

  it('sends a batch of gets with the version only when one of its callers asks for it', async () => {
    const readWithVersion = reader.store.readWithVersion
    assert.ok(readWithVersion, 'a PostgreSQL store reads with the version')
    const sent: boolean[] = []
    const reads = postgresPetReads(reader.store.read, (query, withVersion) => {
      sent.push(withVersion)
      return readWithVersion(query, withVersion)
    })
    const [first, second] = [await create('batched-first'), await create('batched-second')]
    const summary = (loaded: Awaited<ReturnType<typeof reads.pet>>) => [loaded.value?.pet.name, loaded.version]

    const unversioned = await Promise.all([reads.pet(first.id, false), reads.pet(second.id, false)])
    assert.deepEqual(sent, [false])
    assert.deepEqual(unversioned.map(summary), [
      ['batched-first', undefined],
      ['batched-second', undefined],
    ])

    // One caller asking is enough: the whole batch is one query, sent with the version read before it.
    const version = await dataVersion()
    const versioned = await Promise.all([reads.pet(first.id, false), reads.pet(second.id + 1, true)])
    assert.deepEqual(sent, [false, true])
    assert.deepEqual(versioned.map(summary), [
      ['batched-first', version],
      [undefined, version],
    ])
  })

  it('sends the batch after a failed one with the version only if one of its own callers asks', async () => {
    const readWithVersion = reader.store.readWithVersion
    assert.ok(readWithVersion, 'a PostgreSQL store reads with the version')
    const sent: boolean[] = []
    let failNext = true
    const reads = postgresPetReads(reader.store.read, (query, withVersion) => {
      sent.push(withVersion)
      if (!failNext) return readWithVersion(query, withVersion)
      failNext = false
      return Promise.reject(new Error('connection lost'))
    })
    const pet = await create('after-a-failure')
    await assert.rejects(reads.pet(pet.id, true), { message: 'connection lost' })
    const after = await reads.pet(pet.id, false)
    assert.deepEqual([after.value?.pet.name, after.version], ['after-a-failure', undefined])
    assert.deepEqual(sent, [true, false])
  })

  it("sees another instance's write on the next read, after a miss and after a cached read", async () => {
    for (let round = 0; round < 10; round++) {
      const pet = await create(`round-${round}`)
      // The first read misses the cache and is not kept; the second misses it too, and is kept (a pet is kept from
      // its second load on).
      for (let load = 0; load < 2; load++)
        assert.deepEqual(await read(`/v1/pets/${pet.id}`), { status: 200, body: pet })
      await rename(pet.id, `renamed-once-${round}`)
      assert.deepEqual(await read(`/v1/pets/${pet.id}`), {
        status: 200,
        body: { ...pet, name: `renamed-once-${round}` },
      })
      // Loaded again under the new version and kept, then answered from the cache after the per-turn version read.
      for (let load = 0; load < 2; load++)
        assert.deepEqual(await read(`/v1/pets/${pet.id}`), {
          status: 200,
          body: { ...pet, name: `renamed-once-${round}` },
        })
      await rename(pet.id, `renamed-twice-${round}`)
      const reads = await Promise.all(Array.from({ length: 8 }, () => read(`/v1/pets/${pet.id}`)))
      for (const answer of reads)
        assert.deepEqual(answer, { status: 200, body: { ...pet, name: `renamed-twice-${round}` } })
    }
  })

  it('shows a pet created by another instance after a 404 was kept, and a page after a create', async () => {
    const last = await create('last-before')
    const missing = last.id + 1
    const notFound = await read(`/v1/pets/${missing}`)
    assert.equal(notFound.status, 404)
    assert.equal((await read(`/v1/pets/${missing}`)).status, 404)
    const page = await read('/v1/pets?limit=100&status=available')
    assert.equal(page.status, 200)

    const created = await create('first-after')
    assert.equal(created.id, missing)
    assert.deepEqual(await read(`/v1/pets/${missing}`), { status: 200, body: created })
    assert.deepEqual(await read('/v1/pets?limit=100&status=available'), {
      status: 200,
      body: [...page.body, created].slice(0, 100),
    })
  })

  it('forgets what it kept when the database goes back in time, instead of serving rows now gone', async () => {
    // The database as an earlier copy of it had it: the versions and the next pet id of that moment.
    const earlier = (await observer.query('select shard, version from data_version')).rows
    const nextId = (await observer.query(`select last_value from pets_id_seq`)).rows[0].last_value
    const gone = await create('only-in-the-newer-copy')
    assert.deepEqual(await read(`/v1/pets/${gone.id}`), { status: 200, body: gone })
    assert.deepEqual(await read(`/v1/pets/${gone.id}`), { status: 200, body: gone })

    await observer.query('begin')
    await observer.query('delete from pets where id = $1', [gone.id])
    for (const { shard, version } of earlier)
      await observer.query('update data_version set version = $2 where shard = $1', [shard, version])
    await observer.query(`select setval('pets_id_seq', $1)`, [nextId])
    await observer.query('commit')

    assert.deepEqual(await read(`/v1/pets/${gone.id}`), {
      status: 404,
      body: { code: 'not_found', message: `No pet has id ${gone.id}.`, status: 404 },
    })
    // The same id given again, to another pet, and the version back at the one the forgotten answer was kept under.
    const again = await create('given-the-same-id')
    assert.equal(again.id, gone.id)
    assert.deepEqual(await read(`/v1/pets/${gone.id}`), { status: 200, body: again })
  })
})
