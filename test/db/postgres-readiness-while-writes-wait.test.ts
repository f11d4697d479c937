// Readiness while writes wait in a lock queue: a transaction outside the service (an operator's, another
// instance's) holds the pets table, so the service's writes wait and hold every connection of its pool. Reads are
// still served, and /readyz, which asks for a read, says ready: a balancer keeps sending the reads this instance can
// answer. Once the lock goes, the waiting write completes.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

describe('readiness while every pooled connection waits for a lock', () => {
  let database: TestDatabase
  let server: TestServer
  let holder: pg.Client

  before(async () => {
    database = await createTestDatabase('postgres')
    // One connection for transactions: one waiting write holds all of them.
    server = await startTestServer({ database, env: { DATABASE_POOL_SIZE: '1' } })
    holder = new pg.Client({ connectionString: database.url })
    await holder.connect()
  })
  after(async () => {
    await holder.end().catch(() => {})
    await server.close()
    await database.drop()
  })

  /** Resolves once a session of the service waits for a lock on the pets table. */
  async function writeWaiting(): Promise<void> {
    for (let attempt = 0; attempt < 200; attempt++) {
      const { rows } = await holder.query<{ waiting: number }>(
        `select count(*)::int as waiting from pg_locks
          where not granted and relation = 'pets'::regclass and pid <> pg_backend_pid()`,
      )
      if (rows[0]?.waiting) return
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    throw new Error('no write came to wait for the lock within 5 s')
  }

  it('answers /readyz 200 and serves reads; the waiting create completes once the lock goes', async () => {
    const first = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
    assert.equal(first.status, 201)
    const rex = (await first.json()) as { id: number }

    // Reads (plain selects) go on beside this lock; every write to pets waits for it.
    await holder.query('begin')
    await holder.query('lock table pets in exclusive mode')
    const waitingCreate = server.request('/v1/pets', { json: { name: 'Bello', categoryId: 1 } })
    await writeWaiting()

    const ready = await server.request('/readyz', { auth: false })
    assert.deepEqual({ status: ready.status, body: await ready.json() }, { status: 200, body: { status: 'ready' } })
    const read = await server.request(`/v1/pets/${rex.id}`)
    assert.equal(read.status, 200)
    assert.equal(((await read.json()) as { name: string }).name, 'Rex')

    await holder.query('rollback')
    const created = await waitingCreate
    assert.equal(created.status, 201)
    assert.equal(((await created.json()) as { name: string }).name, 'Bello')
  })
})
