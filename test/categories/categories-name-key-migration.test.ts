// Migration 0016 on a store whose category keys were folded once: a key holding ß (it could only come from a
// capital ẞ) is refolded to ss, unless another category already has that key (both names were accepted then:
// both stay, each with its key). One row at a time, so that two keys refolding alike do not both change. Down
// changes nothing.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { migrateToLatest } from '../../src/db/migrate.js'
import type { Store } from '../../src/db/store.js'
import { migrateTo, migrateUntil } from '../helpers/migrations.js'
import { openTestStore } from '../helpers/opened-store.js'
import { TEST_STORE } from '../helpers/store.js'

const BEFORE = '0015_webhook_pending_events'

describe(`migration 0016 (category keys folded twice) on ${TEST_STORE}`, () => {
  let store: Store
  let closeStore: () => Promise<void>
  before(async () => {
    ;({ store, close: closeStore } = await openTestStore())
  })
  after(() => closeStore())

  const keys = async () => {
    const { rows } = await sql<{
      id: number
      key: string
    }>`select id, name_key as key from categories order by id`.execute(store.admin)
    return rows.map((row) => [Number(row.id), row.key])
  }

  it('refolds the keys a capital sharp s made, except where another category has the refolded key', async () => {
    const db = store.admin
    assert.equal((await migrateUntil(db, BEFORE)).error, undefined)
    // Keys as the fold of one round made them: ẞ → ß, while ß and SS → ss.
    await sql`insert into categories (id, name, name_key, version) values
      (1, 'GROẞ', 'groß', 1),
      (2, 'Straße', 'strasse', 1),
      (3, 'STRAẞE', 'straße', 1),
      (4, 'ẞS', 'ßs', 1),
      (5, 'Sẞ', 'sß', 1),
      (6, 'Dogs', 'dogs', 1)`.execute(db)

    assert.ok((await migrateToLatest(db)).applied.includes('0016_category_name_key_sharp_s'))
    assert.deepEqual(await keys(), [
      [1, 'gross'],
      [2, 'strasse'],
      [3, 'straße'],
      [4, 'sss'],
      [5, 'sß'],
      [6, 'dogs'],
    ])

    assert.equal((await migrateTo(db, BEFORE)).error, undefined)
    assert.deepEqual((await keys()).length, 6)
    assert.deepEqual((await migrateToLatest(db)).applied, [
      '0016_category_name_key_sharp_s',
      '0017_category_name_key_composed',
      '0018_category_name_key_decomposed',
    ])
  })
})

// Migration 0017 on a store whose keys were folded by one round of NFC, then upper and lower case twice: case
// mapping can leave text that composes anew, and the key of such a name is refolded to the end, unless another
// category already has that key. Down refolds them back.
describe(`migration 0017 (category keys folded until they no longer change) on ${TEST_STORE}`, () => {
  const BEFORE_0017 = '0016_category_name_key_sharp_s'
  let store: Store
  let closeStore: () => Promise<void>
  before(async () => {
    ;({ store, close: closeStore } = await openTestStore())
  })
  after(() => closeStore())

  it('refolds a key that composes anew, except where another category has the refolded key', async () => {
    const db = store.admin
    assert.equal((await migrateUntil(db, BEFORE_0017)).error, undefined)
    // Keys as one round made them: Ϊ + acute → ϊ + acute; ß + acute → s, s, acute.
    await sql`insert into categories (id, name, name_key, version) values
      (1, ${'\u03AA\u0301'}, ${'\u03CA\u0301'}, 1),
      (2, ${'\u0390'}, ${'\u03B9\u0308\u0301'}, 1),
      (3, ${'Fu\u00DF\u0301'}, ${'fuss\u0301'}, 1),
      (4, 'Dogs', 'dogs', 1)`.execute(db)

    assert.equal((await migrateUntil(db, '0017_category_name_key_composed')).error, undefined)
    const { rows } = await sql<{ id: number; key: string }>`
      select id, name_key as key from categories order by id`.execute(db)
    assert.deepEqual(
      rows.map((row) => [Number(row.id), row.key]),
      [
        // Its refolded key is category 2's: both names stay, each with its key.
        [1, '\u03CA\u0301'],
        [2, '\u03B9\u0308\u0301'],
        [3, 'fus\u015B'],
        [4, 'dogs'],
      ],
    )

    // Down gives back the keys the earlier fold looks names up by.
    assert.equal((await migrateTo(db, BEFORE_0017)).error, undefined)
    const { rows: down } = await sql<{ id: number; key: string }>`
      select id, name_key as key from categories order by id`.execute(db)
    assert.deepEqual(
      down.map((row) => [Number(row.id), row.key]),
      [
        [1, '\u03CA\u0301'],
        [2, '\u03B9\u0308\u0301'],
        [3, 'fuss\u0301'],
        [4, 'dogs'],
      ],
    )
    assert.deepEqual((await migrateToLatest(db)).applied, [
      '0017_category_name_key_composed',
      '0018_category_name_key_decomposed',
    ])
  })
})

// Migration 0018 on a store whose keys were folded from the composed name: a letter composed with a mark that has
// no capital form of its own upper-cased apart from its marks, and its key is refolded from the decomposed name,
// unless another category already has that key. Down refolds them back.
describe(`migration 0018 (category keys folded from the decomposed name) on ${TEST_STORE}`, () => {
  const BEFORE_0018 = '0017_category_name_key_composed'
  let store: Store
  let closeStore: () => Promise<void>
  before(async () => {
    ;({ store, close: closeStore } = await openTestStore())
  })
  after(() => closeStore())

  it('refolds a key cased apart from its marks, except where another category has the refolded key', async () => {
    const db = store.admin
    assert.equal((await migrateUntil(db, BEFORE_0018)).error, undefined)
    // Keys as the composed fold made them: ᾷ (U+1FB7) → α, ◌͂, ι; ᾼ (U+1FBC) + ◌͂ → α, ι, ◌͂.
    await sql`insert into categories (id, name, name_key, version) values
      (1, ${'\u1FB7'}, ${'\u03B1\u0342\u03B9'}, 1),
      (2, ${'\u1FBC\u0342'}, ${'\u03B1\u03B9\u0342'}, 1),
      (3, 'Dogs', 'dogs', 1)`.execute(db)

    assert.ok((await migrateToLatest(db)).applied.includes('0018_category_name_key_decomposed'))
    const { rows } = await sql<{ id: number; key: string }>`
      select id, name_key as key from categories order by id`.execute(db)
    assert.deepEqual(
      rows.map((row) => [Number(row.id), row.key]),
      [
        [1, '\u1FB6\u03B9'],
        // Its refolded key is category 1's: both names stay, each with its key.
        [2, '\u03B1\u03B9\u0342'],
        [3, 'dogs'],
      ],
    )

    // Down gives back the keys the earlier fold looks names up by.
    assert.equal((await migrateTo(db, BEFORE_0018)).error, undefined)
    const { rows: down } = await sql<{ id: number; key: string }>`
      select id, name_key as key from categories order by id`.execute(db)
    assert.deepEqual(
      down.map((row) => [Number(row.id), row.key]),
      [
        [1, '\u03B1\u0342\u03B9'],
        [2, '\u03B1\u03B9\u0342'],
        [3, 'dogs'],
      ],
    )
    assert.deepEqual((await migrateToLatest(db)).applied, ['0018_category_name_key_decomposed'])
  })
})
