// The pet reads on SQLite make their JSON in SQL (json_object) instead of JSON.stringify(toPet(row)). Clients
// must not be able to tell: for every kind of name, every filter and every page, the text is byte for byte
// what the query-builder path (the one PostgreSQL uses) produces from the same rows, and both pass deleted pets by.
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { migrateToLatest } from '../../src/db/migrate.js'
import { openSqlite, type SqliteStore } from '../../src/db/sqlite.js'
import { knownJsonText } from '../../src/http/json/prepared-json.js'
import { queryBuilderPetReads, type PetReads } from '../../src/pets/pet-reads.js'
import { sqlitePetReads } from '../../src/pets/pet-reads.sqlite.js'
import { deletePetAtVersion, insertPet, updatePetAtVersion, type PetStatus } from '../../src/pets/pet.repository.js'
import { makeTempDir } from '../helpers/temp.js'

const NAMES = [
  'Rex',
  '',
  ' ',
  'quote " and backslash \\ and slash /',
  'tab\tnewline\nreturn\r',
  'control \u0001\u001f\u007f',
  'ünïcödé',
  'emoji 🐕‍🦺',
  'line separators \u2028\u2029',
  '<script>alert(1)</script>',
  '{"id":1}',
  'x'.repeat(100),
]
const STATUSES: PetStatus[] = ['available', 'pending', 'sold']

describe('pet JSON made by SQLite', () => {
  let directory: string
  let store: SqliteStore
  let inSql: PetReads
  let inJs: PetReads
  let ids: number[]
  /** Deleted pets of every status before, between and after the live ones. */
  let deleted: number[]

  async function addDeleted(status: PetStatus): Promise<void> {
    const row = await store.transaction((trx) => insertPet(trx, { name: `deleted ${status}`, category_id: 1, status }))
    assert.ok(await store.transaction((trx) => deletePetAtVersion(trx, row.id, 1, new Date().toISOString())))
    deleted.push(row.id)
  }

  before(async () => {
    directory = makeTempDir()
    store = openSqlite(join(directory, 'pets.db'))
    await migrateToLatest(store.admin)
    ids = []
    deleted = []
    for (const status of STATUSES) await addDeleted(status)
    for (const [index, name] of NAMES.entries()) {
      const row = await store.transaction((trx) =>
        insertPet(trx, { name, category_id: index * 1_000_003, status: STATUSES[index % 3] ?? 'available' }),
      )
      ids.push(row.id)
      if (index % 4 === 2) await addDeleted(STATUSES[index % 3] ?? 'available')
    }
    for (const status of STATUSES) await addDeleted(status)
    // A version beyond 1 (the value itself unchanged).
    assert.ok(await store.transaction((trx) => updatePetAtVersion(trx, ids[1] ?? 0, 1, { category_id: 1_000_003 })))
    assert.ok(store.sqliteReader, 'a SQLite file has a read connection')
    inSql = sqlitePetReads(store.sqliteReader)
    inJs = queryBuilderPetReads(store.read)
  })
  after(async () => {
    await store.close()
    rmSync(directory, { recursive: true, force: true })
  })

  it('gives every pet exactly as JSON.stringify(toPet(row)) would, with its version, and no deleted pet', async () => {
    for (const [index, id] of ids.entries()) {
      const pet = await inSql.pet(id)
      assert.ok(pet)
      const text = knownJsonText(pet.pet)
      assert.equal(text, JSON.stringify((await inJs.pet(id))?.pet))
      assert.deepEqual(pet, await inJs.pet(id))
      assert.deepEqual(JSON.parse(text ?? 'null'), {
        id,
        name: NAMES[index],
        categoryId: index * 1_000_003,
        status: STATUSES[index % 3],
      })
      assert.equal(pet.version, id === ids[1] ? 2 : 1)
    }
    for (const id of [...deleted, ids.length + deleted.length + 1000]) {
      assert.equal(await inSql.pet(id), undefined)
      assert.equal(await inJs.pet(id), undefined)
    }
  })

  it('gives every page, filtered or not, with the same text and the same next-page position', async () => {
    let pages = 0
    for (const status of [undefined, ...STATUSES]) {
      for (const limit of [1, 2, 5, NAMES.length, 100]) {
        // A cursor may point at a pet deleted since it was issued.
        for (const afterId of [undefined, 0, ...ids, ...deleted]) {
          const query = { status, afterId, limit }
          const page = await inSql.page(query)
          const expected = await inJs.page(query)
          assert.deepEqual(page, expected, JSON.stringify(query))
          assert.equal(knownJsonText(page.items), JSON.stringify(expected.items), JSON.stringify(query))
          pages++
        }
      }
    }
    assert.equal(pages, 4 * 5 * (ids.length + deleted.length + 2))
    // Spot checks of the shape itself, not only agreement of the two paths: only live pets, in id order.
    for (const status of [undefined, ...STATUSES]) {
      const page = await inSql.page({ status, afterId: undefined, limit: 100 })
      assert.deepEqual(
        page.items.map((pet) => pet.id),
        ids.filter((_, index) => status === undefined || STATUSES[index % 3] === status),
        String(status),
      )
    }
    const firstTwo = await inSql.page({ status: undefined, afterId: undefined, limit: 2 })
    assert.equal(
      knownJsonText(firstTwo.items),
      JSON.stringify([
        { id: ids[0], name: NAMES[0], categoryId: 0, status: 'available' },
        { id: ids[1], name: NAMES[1], categoryId: 1_000_003, status: 'pending' },
      ]),
    )
    assert.equal(firstTwo.nextAfterId, ids[1])
    const none = await inSql.page({ status: 'sold', afterId: ids.at(-1), limit: 5 })
    assert.deepEqual(none, { items: [], nextAfterId: undefined })
    assert.equal(knownJsonText(none.items), '[]')
  })
})
