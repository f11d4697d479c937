// During an upgrade, an instance of an earlier version still serving on the migrated database writes the key of a
// category name in its own fold: "ẞQ" as ßq, where the fold of migration 0016 onwards makes ssq. No category holds
// ssq then, so that name (or one equal to it ignoring case) used to be given a second time by this version. The
// category named by the earlier instance takes today's key instead, and the name stays taken.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createCategory, nameTaken, putCategory } from '../helpers/categories.js'
import { assertError } from '../helpers/error-assert.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, runOnTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

describe(`a category an earlier version's instance named during an upgrade (${TEST_STORE})`, () => {
  let database: TestDatabase
  let server: TestServer
  before(async () => {
    database = await createTestDatabase()
    server = await startTestServer({ database })
  })
  after(async () => {
    await server.close()
    await database.drop()
  })

  it('keeps its name from being given again, in any case, by a create or a rename', async () => {
    const earlier = await createCategory(server, 'Pond')
    // As a version before migration 0016 names it: one round of case folding leaves the capital ẞ as ß.
    await runOnTestDatabase(database, `update categories set name = 'ẞQ', name_key = 'ßq' where id = ${earlier.id}`)
    const holder = { id: earlier.id, name: 'ẞQ' }
    for (const name of ['ẞQ', 'SSQ', 'ßq'])
      await assertError(await server.request('/v1/categories', { json: { name } }), nameTaken(holder))
    const other = await createCategory(server, 'Hill')
    await assertError(await putCategory(server, other.id, 'ssq'), nameTaken(holder))

    // The category itself may still be renamed to its name in another case; the name stays taken.
    const renamed = await putCategory(server, earlier.id, 'ẞq')
    assert.equal(renamed.status, 200)
    assert.deepEqual(await renamed.json(), { id: earlier.id, name: 'ẞq' })
    await assertError(
      await server.request('/v1/categories', { json: { name: 'SSQ' } }),
      nameTaken({ id: earlier.id, name: 'ẞq' }),
    )
    const listed = await server.request('/v1/categories')
    assert.deepEqual(await listed.json(), [
      { id: earlier.id, name: 'ẞq' },
      { id: other.id, name: 'Hill' },
    ])
  })
})
