// A shop file written before migration 0011 (the first petstore export wrote schema 0009_webhook_fan_out) has no
// category tables: its import keeps the id counter row the migration makes, so the shop's first category writes
// after the move work, and a new category's id goes above every categoryId its pets use.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { categoryPath, putCategory } from '../helpers/categories.js'
import { exportShop, importIntoNewDatabase, resealShopFile } from '../helpers/move.js'
import { makeTempDir, startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const EARLIER_SCHEMA = '0010_event_log'
const CATEGORY_TABLES = ['categories', 'category_id_counter']

/** Rewrites `file` as that schema wrote it: no category lines, counts or events, sealed again. */
function asFileBeforeCategories(file: string): void {
  resealShopFile(
    file,
    (line, index) =>
      CATEGORY_TABLES.includes(line.table as string)
        ? undefined
        : index === 0
          ? { ...line, schemaVersion: EARLIER_SCHEMA }
          : line,
    (counts) => Object.fromEntries(Object.entries(counts).filter(([name]) => !CATEGORY_TABLES.includes(name))),
  )
}

describe(`the import of a shop file written before categories (${TEST_STORE})`, () => {
  let database: TestDatabase
  let server: TestServer
  let moved: TestDatabase | undefined
  const directory = makeTempDir()
  before(async () => {
    database = await createTestDatabase()
    server = await startTestServer({ database })
  })
  after(async () => {
    await server.close()
    await database.drop()
    await moved?.drop()
  })

  it('keeps the category id counter: categories are created and named after the move', async () => {
    const pet = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 7 } })
    assert.equal(pet.status, 201)
    const file = join(directory, 'before-categories.jsonl')
    await exportShop(database.url, file)
    asFileBeforeCategories(file)

    moved = await importIntoNewDatabase(file)
    const target = await startTestServer({ database: moved })
    try {
      const created = await target.request('/v1/categories', { json: { name: 'Cats' } })
      assert.deepEqual(
        { status: created.status, body: await created.json() },
        {
          status: 201,
          body: { id: 8, name: 'Cats' },
        },
      )
      const named = await putCategory(target, 7, 'Dogs')
      assert.deepEqual(
        { status: named.status, body: await named.json() },
        {
          status: 201,
          body: { id: 7, name: 'Dogs' },
        },
      )
      assert.equal((await target.request(categoryPath(7))).status, 200)
    } finally {
      await target.close()
    }
  })
})
