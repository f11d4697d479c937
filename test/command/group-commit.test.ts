// Group commit on SQLite: concurrent transactions share COMMITs (fsyncs), each request is answered only
// after its own commit, and a transaction that fails inside a batch leaves the others untouched.
// The server runs as its own process: batches form while a COMMIT's fsync holds its event loop and
// requests pile up in the socket buffers, which a client sharing the test's event loop could not do.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { spawnServer, type ServerProcess } from '../helpers/process.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const KEY = 'group-commit-key-0123456789'

function counter(metrics: string, name: string): number {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${name} `))
  return Number(line?.split(' ')[1] ?? NaN)
}

describe(
  'group commit',
  {
    skip:
      TEST_STORE !== 'sqlite' &&
      'group commit is the SQLite write path; PostgreSQL commits concurrent transactions together itself',
  },
  () => {
    let database: TestDatabase
    let process: ServerProcess
    before(async () => {
      database = await createTestDatabase()
      process = await spawnServer({ DATABASE_URL: database.url, PETSTORE_API_KEYS: KEY })
    })
    after(async () => {
      process.child.kill('SIGTERM')
      await process.exited
      await database.drop()
    })
    const server = {
      request(path: string, init: { auth?: boolean; json?: unknown } = {}) {
        return fetch(process.baseUrl + path, {
          method: init.json === undefined ? 'GET' : 'POST',
          headers: {
            ...(init.auth === false ? {} : { authorization: `Bearer ${KEY}` }),
            ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
        })
      },
    }

    async function commits(): Promise<{ commits: number; transactions: number }> {
      const text = await (await server.request('/metrics', { auth: false })).text()
      return {
        commits: counter(text, 'petstore_sqlite_commits_total'),
        transactions: counter(text, 'petstore_sqlite_committed_transactions_total'),
      }
    }

    it('commits concurrent creates together, and every acknowledged pet is readable at once', async () => {
      const before = await commits()
      // 40 clients on keep-alive connections, each sending its next create as soon as the last is answered.
      const pets = (
        await Promise.all(
          Array.from({ length: 40 }, async (_, client) => {
            const created: { id: number; name: string }[] = []
            for (let index = 0; index < 10; index++) {
              const response = await server.request('/v1/pets', {
                json: { name: `batched-${client}-${index}`, categoryId: 1 },
              })
              assert.equal(response.status, 201)
              created.push(await response.json())
            }
            return created
          }),
        )
      ).flat()
      const afterwards = await commits()
      // One transaction a create. The three purges (idempotency keys, events, deliveries) each make a first run at a
      // random moment of their first five minutes, so up to three of theirs may fall in this window too.
      const transactions = afterwards.transactions - before.transactions
      assert.ok(
        transactions >= 400 && transactions <= 403,
        `expected 400 transactions (and ≤ 3 purges'), got ${transactions}`,
      )
      assert.ok(
        afterwards.commits - before.commits < 400,
        `expected fewer COMMITs than transactions, got ${afterwards.commits - before.commits}`,
      )
      for (const pet of pets.slice(0, 20)) {
        assert.deepEqual(await (await server.request(`/v1/pets/${pet.id}`)).json(), {
          id: pet.id,
          name: pet.name,
          categoryId: 1,
          status: 'available',
        })
      }
    })

    it('rolls back only the failing transaction of a batch', async () => {
      const pet = await (await server.request('/v1/pets', { json: { name: 'wanted', categoryId: 1 } })).json()
      // 30 orders for one pet (29 roll back inside their batch with 409) beside 30 creates that must all stay.
      const [orders, creates] = await Promise.all([
        Promise.all(Array.from({ length: 30 }, () => server.request('/v1/store/orders', { json: { petId: pet.id } }))),
        Promise.all(
          Array.from({ length: 30 }, (_, index) =>
            server.request('/v1/pets', { json: { name: `beside-${index}`, categoryId: 2 } }),
          ),
        ),
      ])
      assert.deepEqual(orders.map((response) => response.status).sort(), [201, ...Array(29).fill(409)])
      assert.deepEqual(
        creates.map((response) => response.status),
        Array(30).fill(201),
      )
      const created: { id: number }[] = await Promise.all(creates.map((response) => response.json()))
      for (const { id } of created) assert.equal((await server.request(`/v1/pets/${id}`)).status, 200)
      assert.equal((await (await server.request(`/v1/pets/${pet.id}`)).json()).status, 'pending')
    })
  },
)
