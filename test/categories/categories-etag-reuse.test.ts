// A category deleted and named again with PUT never gets a version its id had before: a client holding the old
// record's ETag gets the new record on GET (not 304), and its If-Match no longer holds (412). Versions of new
// categories go above the versions of every category deleted, also after the shop is exported and imported.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { categoryPath, createCategory, deleteCategory, putCategory } from '../helpers/categories.js'
import { assertError } from '../helpers/error-assert.js'
import { exportShop, importIntoNewDatabase } from '../helpers/move.js'
import { makeTempDir, startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const ID = 40

const changedSince = (id: number, current: string) => ({
  status: 412,
  code: 'precondition_failed',
  message:
    `If-Match does not name the current ETag of category ${id}, ${current}: it was changed since it was read. ` +
    'Nothing was changed; read it again before retrying.',
})

async function assertAnswer(
  response: Response,
  expected: { status: number; etag: string | null; body: unknown; location?: string },
): Promise<void> {
  const text = await response.text()
  assert.equal(response.status, expected.status, text)
  assert.equal(response.headers.get('etag'), expected.etag)
  assert.equal(response.headers.get('location'), expected.location ?? null)
  assert.deepEqual(text === '' ? undefined : JSON.parse(text), expected.body)
}

describe(`a category deleted and named again (${TEST_STORE})`, () => {
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

  it('gets a new ETag: GET with the old one answers 200, PUT with If-Match of the old one 412', async () => {
    const location = `${server.baseUrl}${categoryPath(ID)}`
    await assertAnswer(await putCategory(server, ID, 'Dogs'), {
      status: 201,
      etag: `"${ID}.1"`,
      location,
      body: { id: ID, name: 'Dogs' },
    })
    await assertAnswer(await deleteCategory(server, ID, { 'if-match': `"${ID}.1"` }), {
      status: 204,
      etag: null,
      body: undefined,
    })
    await assertAnswer(await putCategory(server, ID, 'Cats'), {
      status: 201,
      etag: `"${ID}.2"`,
      location,
      body: { id: ID, name: 'Cats' },
    })
    // A client that cached Dogs under "40.1" is given Cats.
    await assertAnswer(await server.request(categoryPath(ID), { headers: { 'if-none-match': `"${ID}.1"` } }), {
      status: 200,
      etag: `"${ID}.2"`,
      body: { id: ID, name: 'Cats' },
    })
    // An update made from the Dogs read does not overwrite Cats.
    const stale = await putCategory(server, ID, 'Birds', { 'if-match': `"${ID}.1"` })
    await assertError(stale, changedSince(ID, `"${ID}.2"`))
    await assertAnswer(await server.request(categoryPath(ID)), {
      status: 200,
      etag: `"${ID}.2"`,
      body: { id: ID, name: 'Cats' },
    })
  })

  it('starts every new category above the versions deleted ones reached; a rename counts on by one', async () => {
    await assertAnswer(await putCategory(server, ID, 'Birds', { 'if-match': `"${ID}.2"` }), {
      status: 200,
      etag: `"${ID}.3"`,
      body: { id: ID, name: 'Birds' },
    })
    assert.equal((await deleteCategory(server, ID)).status, 204)
    assert.deepEqual(await createCategory(server, 'Fish'), { id: ID + 1, name: 'Fish', etag: `"${ID + 1}.4"` })
    await assertAnswer(await putCategory(server, ID, 'Birds'), {
      status: 201,
      etag: `"${ID}.4"`,
      location: `${server.baseUrl}${categoryPath(ID)}`,
      body: { id: ID, name: 'Birds' },
    })
    await assertAnswer(await putCategory(server, ID, 'Parrots'), {
      status: 200,
      etag: `"${ID}.5"`,
      body: { id: ID, name: 'Parrots' },
    })
    assert.equal((await deleteCategory(server, ID)).status, 204)
    // Deleting a category at a lower version (Fish, 4) leaves the floor at 5.
    assert.equal((await deleteCategory(server, ID + 1, { 'if-match': `"${ID + 1}.4"` })).status, 204)
    await assertAnswer(await putCategory(server, ID + 1, 'Fish'), {
      status: 201,
      etag: `"${ID + 1}.6"`,
      location: `${server.baseUrl}${categoryPath(ID + 1)}`,
      body: { id: ID + 1, name: 'Fish' },
    })
  })

  it('keeps the floor through an export and an import', async () => {
    assert.equal((await deleteCategory(server, ID + 1, { 'if-match': `"${ID + 1}.6"` })).status, 204)
    const file = join(directory, 'shop.jsonl')
    await exportShop(database.url, file)
    moved = await importIntoNewDatabase(file)
    const target = await startTestServer({ database: moved })
    try {
      await assertAnswer(await putCategory(target, ID, 'Dogs'), {
        status: 201,
        etag: `"${ID}.7"`,
        location: `${target.baseUrl}${categoryPath(ID)}`,
        body: { id: ID, name: 'Dogs' },
      })
    } finally {
      await target.close()
    }
  })
})
