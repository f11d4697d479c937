// The stored response of an endpoint's registration shows its signing secret, so it is sealed like the secret.
// An import checks it against WEBHOOK_SECRET_KEY too, even when the endpoint itself is gone: with another key it is
// refused (every replay would fail after the move); with the source's key the replay answers as before.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { petstore, shopRows } from '../helpers/move.js'
import { makeTempDir, startTestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'
import { LOOPBACK_WEBHOOKS } from '../helpers/webhooks.js'

const WEBHOOK_SECRET_KEY = randomBytes(32).toString('hex')
const ENV = { ...LOOPBACK_WEBHOOKS, WEBHOOK_SECRET_KEY }
const directory = makeTempDir()
const exported = join(directory, 'sealed.jsonl')
const databases: TestDatabase[] = []
const REGISTER = {
  json: { url: 'http://127.0.0.1:9/hooks' },
  headers: { 'idempotency-key': 'register-once' },
}
let firstAnswer = ''

before(async () => {
  const source = await createTestDatabase('sqlite')
  databases.push(source)
  const server = await startTestServer({ database: source, env: ENV })
  try {
    const registered = await server.request('/v1/webhooks', REGISTER)
    assert.equal(registered.status, 201)
    firstAnswer = await registered.text()
    const { id } = JSON.parse(firstAnswer) as { id: number }
    assert.equal((await server.request(`/v1/webhooks/${id}`, { method: 'DELETE' })).status, 204)
  } finally {
    await server.close()
  }
  const result = await petstore(['export', exported], { DATABASE_URL: source.url })
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(shopRows(exported, 'webhook_endpoints'), [])
  const [stored] = shopRows(exported, 'idempotency_keys')
  assert.match(String(stored?.response_body), /^v1\./)
})
after(async () => {
  for (const database of databases) await database.drop()
})

describe('a sealed stored response in a shop file', () => {
  it('is refused with another WEBHOOK_SECRET_KEY, and nothing is left behind', async () => {
    const target = await createTestDatabase('sqlite')
    databases.push(target)
    const result = await petstore(['import', exported], {
      DATABASE_URL: target.url,
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    })
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    // After the line naming the database used.
    assert.equal(
      result.stderr.split('\n').slice(1).join('\n'),
      'petstore: import refused, nothing changed: the stored response of Idempotency-Key "register-once" was ' +
        'encrypted with another WEBHOOK_SECRET_KEY than the one set: set the key the source used\n',
    )
    assert.equal(existsSync(fileURLToPath(target.url.replace(/^file:/, 'file://'))), false)
  })

  it("replays as before with the source's key", async () => {
    const target = await createTestDatabase('sqlite')
    databases.push(target)
    const result = await petstore(['import', exported], { DATABASE_URL: target.url, WEBHOOK_SECRET_KEY })
    assert.equal(result.code, 0, result.stderr)
    const server = await startTestServer({ database: target, env: ENV })
    try {
      const replayed = await server.request('/v1/webhooks', REGISTER)
      assert.equal(replayed.status, 201)
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true')
      assert.equal(await replayed.text(), firstAnswer)
    } finally {
      await server.close()
    }
  })
})
