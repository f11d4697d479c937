// A shop file written before migration 0014 has no version floor in its counter row. Its import sets the floor
// as the migration does on an upgraded store (the largest event id, kept or purged, plus the events waiting for
// theirs), so a category named again under a deleted one's id does not start at version 1 and repeat its ETags.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { categoryPath, deleteCategory, putCategory } from '../helpers/categories.js'
import { exportShop, importIntoNewDatabase, resealShopFile, shopRows } from '../helpers/move.js'
import { makeTempDir, startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const ID = 40
const EARLIER_SCHEMA = '0013_data_version_free_shard'

/**
 * Rewrites the shop file `file` as that schema wrote it: the header names it, the counter row has no floor, and
 * the closing line's checksum is computed again over the edited lines.
 */
function asEarlierSchemaFile(file: string): void {
  resealShopFile(file, (line, index) => {
    if (index === 0) return { ...line, schemaVersion: EARLIER_SCHEMA }
    if (line.table !== 'category_id_counter') return line
    const { version_floor: floor, ...row } = line.row as Record<string, unknown>
    assert.ok(typeof floor === 'number' && floor > 0, 'the exported counter row has a floor')
    return { ...line, row }
  })
}

/** The bound the import sets the floor to, read from the file: what migration 0014 would set on its store. */
function eventBound(file: string): number {
  const events = shopRows(file, 'events')
  const ids = events.map((row) => row.id).filter((id) => typeof id === 'number')
  const purged = shopRows(file, 'event_retention').map((row) => row.purged_through as number)
  const versions = shopRows(file, 'categories').map((row) => row.version as number)
  return Math.max(0, ...ids, ...purged, ...versions) + (events.length - ids.length)
}

describe(`the import of a shop file written before the category version floor (${TEST_STORE})`, () => {
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

  it('sets the floor to the event bound: a category named again starts above every version it reached', async () => {
    assert.equal((await putCategory(server, ID, 'Dogs')).status, 201)
    assert.equal((await putCategory(server, ID, 'Cats', { 'if-match': `"${ID}.1"` })).status, 200)
    assert.equal((await deleteCategory(server, ID, { 'if-match': `"${ID}.2"` })).status, 204)
    const file = join(directory, 'earlier.jsonl')
    await exportShop(database.url, file)
    asEarlierSchemaFile(file)
    const bound = eventBound(file)
    assert.ok(bound >= 2, `the bound ${bound} is at least the version the deleted category reached`)

    moved = await importIntoNewDatabase(file)
    const target = await startTestServer({ database: moved })
    try {
      const named = await putCategory(target, ID, 'Dogs')
      assert.equal(named.status, 201, await named.text())
      assert.equal(named.headers.get('etag'), `"${ID}.${bound + 1}"`)
      assert.equal((await target.request(categoryPath(ID))).headers.get('etag'), `"${ID}.${bound + 1}"`)
    } finally {
      await target.close()
    }
  })
})
