// A shop file written before category keys were folded twice may hold two names only today's fold finds equal
// ("STRAẞE" beside "Straße"): its import loads both, as the shop had them, then refolds the keys as migration 0016
// does on an upgraded store, so that no name joins them afterwards and a lone capital ẞ folds like ß and SS.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createCategory, deleteCategory, nameTaken, putCategory } from '../helpers/categories.js'
import { assertError } from '../helpers/error-assert.js'
import { exportShop, importIntoNewDatabase, resealShopFile } from '../helpers/move.js'
import { makeTempDir, startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const EARLIER_SCHEMA = '0015_webhook_pending_events'

/**
 * Rewrites the shop file as that schema could have written it: the header names it, the categories named in
 * `renames` have those names, and the closing line's checksum is computed again over the edited lines.
 */
function asEarlierSchemaFile(file: string, renames: Map<string, string>, schemaVersion = EARLIER_SCHEMA): void {
  resealShopFile(file, (line, index) => {
    if (index === 0) return { ...line, schemaVersion }
    const row = line.row as Record<string, unknown> | undefined
    const renamed = typeof row?.name === 'string' ? renames.get(row.name) : undefined
    return line.table === 'categories' && renamed !== undefined ? { ...line, row: { ...row, name: renamed } } : line
  })
}

describe(`the import of a shop file written before category keys were folded twice (${TEST_STORE})`, () => {
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

  it('loads a pair of names equal by the fold of today, then refolds what it can', async () => {
    // The capital ẞ names take the lower ids, so that they load before the name whose key they would take.
    const capital = await createCategory(server, 'Pond')
    const lone = await createCategory(server, 'Hill')
    const sharp = await createCategory(server, 'Straße')
    const file = join(directory, 'earlier.jsonl')
    await exportShop(database.url, file)
    asEarlierSchemaFile(
      file,
      new Map([
        ['Pond', 'STRA\u1E9EE'],
        ['Hill', 'GRO\u1E9E'],
      ]),
    )

    moved = await importIntoNewDatabase(file)
    const target = await startTestServer({ database: moved })
    try {
      const listed = await target.request('/v1/categories')
      assert.equal(listed.status, 200)
      assert.deepEqual(await listed.json(), [
        { id: capital.id, name: 'STRA\u1E9EE' },
        { id: lone.id, name: 'GRO\u1E9E' },
        { id: sharp.id, name: 'Straße' },
      ])
      const groß = { id: lone.id, name: 'GRO\u1E9E' }
      for (const name of ['gross', 'GROSS', 'groß', 'GRO\u1E9E'])
        await assertError(await target.request('/v1/categories', { json: { name } }), nameTaken(groß))
      for (const name of ['strasse', 'STRA\u1E9EE'])
        await assertError(await target.request('/v1/categories', { json: { name } }), nameTaken(sharp))

      // Once the name it was kept beside is renamed, the kept name holds the key it refolds to: none joins it.
      const kept = { id: capital.id, name: 'STRA\u1E9EE' }
      assert.equal((await putCategory(target, sharp.id, 'Road')).status, 200)
      for (const name of ['strasse', 'STRASSE', 'Straße'])
        await assertError(await target.request('/v1/categories', { json: { name } }), nameTaken(kept))
      // And once that one is deleted, the key is free.
      assert.equal((await deleteCategory(target, capital.id)).status, 204)
      assert.equal((await target.request('/v1/categories', { json: { name: 'STRASSE' } })).status, 201)
    } finally {
      await target.close()
    }
  })

  it('loads a pair of names that compose anew by case mapping, from a file folded by rounds of two', async () => {
    const source = await createTestDatabase()
    const shop = await startTestServer({ database: source })
    let target: TestServer | undefined
    let imported: TestDatabase | undefined
    let reimported: TestDatabase | undefined
    try {
      // The capital name takes the lower id: it loads first, and the refold after the load gives it the key of
      // today (ΐ composed), which the small name's earlier key (ι, diaeresis, acute) is not.
      const capital = await createCategory(shop, 'Peak')
      const small = await createCategory(shop, '\u0390')
      const file = join(directory, 'folded-twice.jsonl')
      await exportShop(source.url, file)
      asEarlierSchemaFile(file, new Map([['Peak', '\u03AA\u0301']]), '0016_category_name_key_sharp_s')

      imported = await importIntoNewDatabase(file)
      target = await startTestServer({ database: imported })
      const listed = await target.request('/v1/categories')
      const holder = { id: capital.id, name: '\u03AA\u0301' }
      assert.deepEqual(await listed.json(), [
        { id: capital.id, name: '\u03AA\u0301' },
        { id: small.id, name: '\u0390' },
      ])
      for (const name of ['\u03CA\u0301', '\u03B9\u0308\u0301', '\u03AA\u0301'])
        await assertError(await target.request('/v1/categories', { json: { name } }), nameTaken(holder))

      // The shop moves on as it is, the pair included: its own export loads, and the pair stays guarded.
      const again = join(directory, 'kept-pair.jsonl')
      await exportShop(imported.url, again)
      reimported = await importIntoNewDatabase(again)
      const reloaded = await startTestServer({ database: reimported })
      try {
        assert.deepEqual(
          await (await reloaded.request('/v1/categories')).json(),
          await (await target.request('/v1/categories')).json(),
        )
        for (const name of ['\u03CA\u0301', '\u03AA\u0301'])
          await assertError(await reloaded.request('/v1/categories', { json: { name } }), nameTaken(holder))
      } finally {
        await reloaded.close()
      }
      // Once the name it was kept beside is deleted, the kept name holds the key it refolds to: none joins it.
      assert.equal((await deleteCategory(target, capital.id)).status, 204)
      for (const name of ['\u03AA\u0301', '\u03CA\u0301'])
        await assertError(await target.request('/v1/categories', { json: { name } }), nameTaken(small))
    } finally {
      await target?.close()
      await shop.close()
      await source.drop()
      await imported?.drop()
      await reimported?.drop()
    }
  })
})
