// PostgreSQL's data version (migration 0006) and what rests on it: a write by anyone (not only an instance)
// is seen on the next read; writers never wait for each other's commit on its rows; a write counts once it is
// committed, not before. Also the read path around it: gets batched per turn answer each request what a query
// of its own would, and statements prepared before a migration changed their table keep working.
// (test/command/read-cache.test.ts proves coherence across two instances, on both stores.)
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { toPet } from '../../src/pets/pet.mapper.js'
import { findPetById } from '../../src/pets/pet.repository.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

type Pet = { id: number; name: string; categoryId: number; status: string }

describe('the PostgreSQL data version', () => {
  let server: TestServer
  let schema: string
  const clients: pg.Client[] = []

  before(async () => {
    server = await startTestServer()
    schema =
      /search_path=(\w+)/.exec(
        new URL(server.config.database.kind === 'postgres' ? server.config.database.url : '').searchParams.get(
          'options',
        ) ?? '',
      )?.[1] ?? ''
    assert.ok(schema, 'the test database is a schema of its own')
  })
  after(async () => {
    await Promise.all(clients.map((client) => client.end()))
    await server.close()
  })

  /** A connection of another program: an operator's psql, by default without the service's search_path. */
  async function connect(searchPath = 'public'): Promise<pg.Client> {
    const url = new URL(server.config.database.kind === 'postgres' ? server.config.database.url : '')
    url.searchParams.set('options', `-c search_path=${searchPath}`)
    const client = new pg.Client({ connectionString: url.toString() })
    await client.connect()
    clients.push(client)
    return client
  }

  const create = async (name: string): Promise<Pet> =>
    (await server.request('/v1/pets', { json: { name, categoryId: 3 } })).json()
  const version = async (client: pg.Client) =>
    Number((await client.query(`select sum(version) as v from "${schema}".data_version`)).rows[0].v)

  it('shows a write made outside the service, from another search_path, on the next read', async () => {
    const pet = await create('cached')
    for (let attempt = 0; attempt < 2; attempt++)
      assert.deepEqual(await (await server.request(`/v1/pets/${pet.id}`)).json(), pet) // now cached
    const page = await (await server.request('/v1/pets?limit=100')).json()

    const operator = await connect()
    await operator.query(`update "${schema}".pets set name = 'renamed by hand' where id = $1`, [pet.id])

    const renamed = { ...pet, name: 'renamed by hand' }
    assert.deepEqual(await (await server.request(`/v1/pets/${pet.id}`)).json(), renamed)
    assert.deepEqual(
      await (await server.request('/v1/pets?limit=100')).json(),
      page.map((listed: Pet) => (listed.id === pet.id ? renamed : listed)),
    )
  })

  it('counts a write once it commits, and lets writers commit without waiting for each other', async () => {
    // Two connections whose writes bump different rows of the version (rows are per connection, modulo 64).
    const first = await connect(schema)
    let second = await connect(schema)
    const shard = async (client: pg.Client) =>
      Number((await client.query('select pg_backend_pid() % 64 as shard')).rows[0].shard)
    while ((await shard(second)) === (await shard(first))) second = await connect(schema)
    // Waiting for a lock would be a failure, not a slow pass.
    await second.query(`set lock_timeout = '5s'`)
    const observer = await connect()
    const initial = await version(observer)

    await first.query('begin')
    await first.query(`insert into pets (name, category_id, status) values ('first', 1, 'available')`)
    assert.equal(await version(observer), initial, 'a write that is not committed is not counted')
    await second.query('begin')
    await second.query(`insert into pets (name, category_id, status) values ('second', 1, 'available')`)
    await second.query('commit')
    assert.equal(await version(observer), initial + 1)
    await first.query('commit')
    assert.equal(await version(observer), initial + 2)
  })

  it('never makes a writer wait for a row of the version another transaction holds (no deadlock on it)', async () => {
    // What a connection whose pid meets this one's modulo 64 did before: it held this connection's row of the
    // version (a statement of its open transaction, even one that changed nothing, had bumped it), then waited
    // for a pet this one was changing. This one waiting for that row in turn was a deadlock.
    const writer = await connect(schema)
    const other = await connect(schema)
    await writer.query(`set lock_timeout = '2s'`)
    const observer = await connect()
    const initial = await version(observer)
    const ownShard = Number((await writer.query('select pg_backend_pid() % 64 as shard')).rows[0].shard)
    await other.query('begin')
    await other.query('select 1 from data_version where shard = $1 for update', [ownShard])
    await writer.query('begin')
    // Fails with a lock time-out if the bump waits for the row `other` holds.
    await writer.query(`insert into pets (name, category_id, status) values ('beside a held row', 1, 'available')`)
    await writer.query('commit')
    assert.equal(await version(observer), initial + 1, 'the write is counted on another row')
    await other.query('rollback')
  })

  it('answers every get of a turn, batched into one query, as findPetById would', async () => {
    const pets = await Promise.all(Array.from({ length: 12 }, (_, index) => create(`batched-${index}`)))
    const ids = [...pets.map((pet) => pet.id), pets[0]?.id ?? 0, 9_007_199_254_740_991]
    const responses = await Promise.all(ids.map((id) => server.request(`/v1/pets/${id}`)))
    for (const [index, id] of ids.entries()) {
      const row = await findPetById(server.store.read, id)
      const response = responses[index]
      assert.equal(response?.status, row ? 200 : 404)
      if (row) assert.deepEqual(await response?.json(), toPet(row))
    }
  })

  it('keeps answering after a migration changes a table under statements prepared before it', async () => {
    const before = await create('prepared')
    assert.equal((await server.request(`/v1/pets/${before.id}`)).status, 200)
    assert.equal((await server.request('/v1/pets?limit=5')).status, 200)

    // What a migration run by a newer release does while this one keeps serving.
    const migration = await connect(schema)
    await migration.query('alter table pets add column added_later integer not null default 0')

    const created = await server.request('/v1/pets', { json: { name: 'after', categoryId: 4 } })
    assert.equal(created.status, 201)
    const pet = await created.json()
    assert.deepEqual(pet, { id: pet.id, name: 'after', categoryId: 4, status: 'available' })
    const read = await server.request(`/v1/pets/${pet.id}`)
    assert.equal(read.status, 200)
    assert.deepEqual(await read.json(), pet)
    const page = await server.request(`/v1/pets?limit=100`)
    assert.equal(page.status, 200)
    assert.deepEqual((await page.json()).at(-1), pet)
  })
})
