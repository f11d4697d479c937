// What docs/decisions.md says about stored keys is what the service does: a key's last use is written at most
// once a minute (not on every request), and stored keys are cached while the database is unchanged (the docs
// once said "looked up on every request, never cached"). Revocation on the next request, cache or
// not, is tested in read-cache.test.ts and multi-instance.test.ts.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { issueApiKey } from '../../src/keys/issue-key.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

// The page that states the rules for keys.
const KEYS_PAGE = 'docs/decisions.md'
const page = readFileSync(KEYS_PAGE, 'utf8')

describe(`stored keys, as ${KEYS_PAGE} describes them`, () => {
  let database: TestDatabase
  let server: TestServer

  // On SQLite, whatever pass runs this file: its one writer orders the writes this test relies on, which a
  // PostgreSQL pool does not (the code that decides when to write is the same for both).
  before(async () => {
    database = await createTestDatabase('sqlite')
    server = await startTestServer({ database })
  })

  after(async () => {
    await server?.close()
    await database?.drop()
  })

  async function lastUsed(id: number): Promise<string | null> {
    const row = await server.store.admin
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    return row.last_used_at
  }

  it("records a key's last use once, not again on the requests that follow within the minute", async () => {
    const { key, row } = await issueApiKey(server.store, 'claims')
    assert.equal((await server.request('/v1/pets', { auth: key })).status, 200)
    // Recorded off the request path: wait for it (the page's claim is about how often, not how soon).
    let first: string | null = null
    for (let attempt = 0; attempt < 100 && first === null; attempt++) {
      first = await lastUsed(row.id)
      if (first === null) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.ok(first !== null, 'last_used_at was never recorded')

    for (let index = 0; index < 3; index++) assert.equal((await server.request('/v1/pets', { auth: key })).status, 200)
    // A write by another key, answered only once committed. SQLite's one writer runs statements in the order
    // they are issued, so any last-use write those three requests issued is committed by now too.
    assert.equal(
      (await server.request('/v1/pets', { method: 'POST', json: { name: 'marker', categoryId: 1 } })).status,
      201,
    )
    assert.equal(await lastUsed(row.id), first)
  })

  it('the page says so, and no longer that keys are never cached', () => {
    assert.doesNotMatch(page, /never cached/)
    assert.doesNotMatch(page, /keys are looked up (on every|per) request/)
    assert.match(page, /at most once a minute per key on each instance/)
    assert.match(
      page,
      new RegExp(
        /a stored key is kept in memory only while the database is unchanged /.source +
          /\(SQLite's `PRAGMA data_version`, PostgreSQL's `data_version` table/.source,
      ),
    )
  })
})
