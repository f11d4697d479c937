// A receiver's answer holding NUL was logged as it was by versions before NUL became U+FFFD in the delivery log.
// SQLite kept it; PostgreSQL's text cannot hold it. An import writes the log as the service writes it today, so
// that a SQLite shop holding such an attempt moves to PostgreSQL, and to SQLite alike.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { petstore, shopRows } from '../helpers/move.js'
import { makeTempDir, startTestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase, type TestStore } from '../helpers/store.js'
import { LOOPBACK_WEBHOOKS, QUICK_WEBHOOKS } from '../helpers/webhooks.js'

const WEBHOOK_SECRET_KEY = randomBytes(32).toString('hex')
const ENV = { ...LOOPBACK_WEBHOOKS, WEBHOOK_SECRET_KEY }
const directory = makeTempDir()
const exported = join(directory, 'nul.jsonl')
const databases: TestDatabase[] = []

before(async () => {
  const source = await createTestDatabase('sqlite')
  databases.push(source)
  const server = await startTestServer({ database: source, env: ENV, tuning: QUICK_WEBHOOKS })
  try {
    assert.equal((await server.request('/v1/webhooks', { json: { url: 'http://127.0.0.1:9/hooks' } })).status, 201)
    assert.equal((await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })).status, 201)
    const deadline = Date.now() + 10_000
    for (;;) {
      const { rows } = await sql`select 1 from webhook_attempts`.execute(server.store.admin)
      if (rows.length > 0) break
      assert.ok(Date.now() < deadline, 'an attempt was logged')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // What an earlier version logged for a receiver that answered "a", NUL, "b".
    await sql`update webhook_attempts set response_body = ${'a\u0000b'}`.execute(server.store.admin)
  } finally {
    await server.close()
  }
  const result = await petstore(['export', exported], { DATABASE_URL: source.url })
  assert.equal(result.code, 0, result.stderr)
  assert.equal(shopRows(exported, 'webhook_attempts')[0]?.response_body, 'a\u0000b')
})
after(async () => {
  for (const database of databases) await database.drop()
})

const stores: TestStore[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']

describe('an attempt logged with NUL in its response body', () => {
  for (const store of stores)
    it(`is imported into ${store} with U+FFFD in its place`, async () => {
      const target = await createTestDatabase(store)
      databases.push(target)
      const result = await petstore(['import', exported], { DATABASE_URL: target.url, WEBHOOK_SECRET_KEY })
      assert.equal(result.code, 0, result.stderr)
      const server = await startTestServer({ database: target, env: ENV })
      try {
        const { rows } = await sql<{ body: string }>`select response_body as body from webhook_attempts`.execute(
          server.store.admin,
        )
        assert.deepEqual(
          rows.map((row) => row.body),
          ['a\uFFFDb'],
        )
      } finally {
        await server.close()
      }
    })
})
