// A shop with more webhook endpoints than a shop may register (one exported before the limit of 100): the import
// keeps every one, as it keeps everything else of a shop, and the imported shop refuses registrations until fewer
// than 100 remain.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { MAX_WEBHOOK_ENDPOINTS } from '../../src/webhooks/endpoints/webhook.service.js'
import { collectPages } from '../helpers/link.js'
import { exportShop, importIntoNewDatabase, shopRows } from '../helpers/move.js'
import { makeTempDir, startTestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'
import { LOOPBACK_WEBHOOKS } from '../helpers/webhooks.js'

const ENDPOINTS = MAX_WEBHOOK_ENDPOINTS + 2
const directory = makeTempDir()
const databases: TestDatabase[] = []
after(async () => {
  for (const database of databases) await database.drop()
})

describe('a shop with more webhook endpoints than the limit', () => {
  it('is imported whole, and the imported shop refuses registrations until fewer than 100 remain', async () => {
    const source = await createTestDatabase('sqlite')
    databases.push(source)
    const server = await startTestServer({ database: source, env: LOOPBACK_WEBHOOKS })
    try {
      const registered = await server.request('/v1/webhooks', { json: { url: 'http://127.0.0.1:9/hooks' } })
      assert.equal(registered.status, 201)
    } finally {
      await server.close()
    }
    // Rows as a petstore made before the limit would have them: copies of the one registered, each its own id.
    const file = new SqliteDatabase(source.url.slice('file:'.length))
    try {
      const columns = (file.pragma('table_info(webhook_endpoints)') as { name: string }[])
        .map(({ name }) => name)
        .filter((name) => name !== 'id')
        .join(', ')
      const copy = file.prepare(`insert into webhook_endpoints (${columns}) select ${columns} from webhook_endpoints
        where id = (select min(id) from webhook_endpoints)`)
      for (let made = 1; made < ENDPOINTS; made++) copy.run()
    } finally {
      file.close()
    }
    const exported = join(directory, 'shop.jsonl')
    await exportShop(source.url, exported)
    assert.equal(shopRows(exported, 'webhook_endpoints').length, ENDPOINTS)

    const target = await importIntoNewDatabase(exported)
    databases.push(target)
    const imported = await startTestServer({ database: target, env: LOOPBACK_WEBHOOKS })
    try {
      const listed = await collectPages<{ id: number }>((path) => imported.request(path), '/v1/webhooks?limit=100')
      assert.equal(listed.length, ENDPOINTS)
      const register = () => imported.request('/v1/webhooks', { json: { url: 'http://127.0.0.1:9/more' } })
      const refused = await register()
      assert.equal(refused.status, 409)
      assert.deepEqual(await refused.json(), {
        code: 'conflict',
        message:
          'There are already 100 webhook endpoints, the most there may be: delete one before registering another. ' +
          'Nothing was changed.',
        status: 409,
      })
      for (const { id } of listed.slice(0, ENDPOINTS - MAX_WEBHOOK_ENDPOINTS))
        assert.equal((await imported.request(`/v1/webhooks/${id}`, { method: 'DELETE' })).status, 204)
      assert.equal((await register()).status, 409)
      assert.equal((await imported.request(`/v1/webhooks/${listed[2]?.id}`, { method: 'DELETE' })).status, 204)
      assert.equal((await register()).status, 201)
    } finally {
      await imported.close()
    }
  })
})
