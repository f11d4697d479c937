// Readiness while writes wait for a lock held outside the service (an operator's transaction, another instance's
// or another process's): the service's writes wait, on PostgreSQL holding every connection of its pool, on SQLite
// holding its one writer. Reads are still served, and /readyz, which asks for a read, says ready: a balancer keeps
// sending the reads this instance can answer. Once the lock goes, the waiting write completes.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

/** A lock on the pets table (PostgreSQL) or on the database file (SQLite) that every write of the service waits for. */
interface WriteLock {
  take(): Promise<void>
  /** Resolves once the service's write waits for the lock. */
  waitedFor(server: TestServer): Promise<void>
  release(): Promise<void>
}

function postgresLock(url: string): WriteLock {
  const holder = new pg.Client({ connectionString: url })
  return {
    async take() {
      await holder.connect()
      // Plain selects go on beside this lock; every write to pets waits for it.
      await holder.query('begin')
      await holder.query('lock table pets in exclusive mode')
    },
    async waitedFor() {
      for (let attempt = 0; attempt < 200; attempt++) {
        const { rows } = await holder.query<{ waiting: number }>(
          `select count(*)::int as waiting from pg_locks
            where not granted and relation = 'pets'::regclass and pid <> pg_backend_pid()`,
        )
        if (rows[0]?.waiting) return
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      throw new Error('no write came to wait for the lock within 5 s')
    },
    async release() {
      await holder.query('rollback')
      await holder.end()
    },
  }
}

function sqliteLock(url: string): WriteLock {
  const holder = new SqliteDatabase(url.slice('file:'.length))
  return {
    async take() {
      holder.exec('begin immediate')
    },
    // SQLite shows no waiter: the write is waiting once the server has its request and has had a moment to begin
    // (the write retries for the 5 s busy time-out, far longer than this).
    async waitedFor(server) {
      const received = new Promise<void>((resolve) => server.app.server.once('request', () => resolve()))
      await received
      await new Promise((resolve) => setTimeout(resolve, 100))
    },
    async release() {
      holder.exec('rollback')
      holder.close()
    },
  }
}

describe('readiness while every write waits for a lock', () => {
  let database: TestDatabase
  let server: TestServer
  let lock: WriteLock

  before(async () => {
    database = await createTestDatabase()
    // One connection for transactions on PostgreSQL: one waiting write holds all of them.
    server = await startTestServer({ database, env: { DATABASE_POOL_SIZE: '1' } })
    lock = TEST_STORE === 'postgres' ? postgresLock(database.url) : sqliteLock(database.url)
  })
  after(async () => {
    await server.close()
    await database.drop()
  })

  it('answers /readyz 200 and serves reads; the waiting create completes once the lock goes', async () => {
    const first = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
    assert.equal(first.status, 201)
    const rex = (await first.json()) as { id: number }

    await lock.take()
    const waiting = lock.waitedFor(server)
    const waitingCreate = server.request('/v1/pets', { json: { name: 'Bello', categoryId: 1 } })
    await waiting

    const ready = await server.request('/readyz', { auth: false })
    assert.deepEqual({ status: ready.status, body: await ready.json() }, { status: 200, body: { status: 'ready' } })
    const read = await server.request(`/v1/pets/${rex.id}`)
    assert.equal(read.status, 200)
    assert.equal(((await read.json()) as { name: string }).name, 'Rex')

    await lock.release()
    const created = await waitingCreate
    assert.equal(created.status, 201)
    assert.equal(((await created.json()) as { name: string }).name, 'Bello')
  })
})
