// A PostgreSQL shop exported while an event waits for its id (committed, in event_inbox, not numbered yet): the
// file holds it after the numbered ones, without an id, and the import puts it back among the waiting events,
// where the numbering gives it the next id. Nothing is lost and no id is handed out twice.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { loadConfig } from '../../src/config.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { openStore, type Store } from '../../src/db/store.js'
import { appendEvent } from '../../src/events/event.repository.js'
import { petstore, shopRows } from '../helpers/move.js'
import { numberEvents, waitingEventNames } from '../helpers/numbering.js'
import { makeTempDir } from '../helpers/temp.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

const event = (name: string) => ({
  type: 'pet.created' as const,
  occurredAt: '2026-11-25T12:00:00.000Z',
  data: JSON.stringify({ name }),
})

describe('a PostgreSQL export with an event still waiting for its id', () => {
  const databases: TestDatabase[] = []
  const stores: Store[] = []
  const open = async () => {
    const database = await createTestDatabase('postgres')
    databases.push(database)
    const store = openStore(loadConfig({ DATABASE_URL: database.url }))
    stores.push(store)
    return { database, store }
  }
  const numbered = async (store: Store) =>
    (await sql<{ id: string; data: string }>`select id, data from events order by id`.execute(store.admin)).rows.map(
      (row) => [Number(row.id), JSON.parse(row.data).name],
    )
  const waiting = waitingEventNames

  let source: Awaited<ReturnType<typeof open>>
  before(async () => {
    source = await open()
    await migrateToLatest(source.store.admin)
  })
  after(async () => {
    for (const store of stores) await store.close()
    for (const database of databases) await database.drop()
  })

  it('writes it last without an id, and the import leaves it waiting for the next id', async () => {
    await source.store.transaction((trx) => appendEvent(trx, event('numbered')))
    await numberEvents(source.store)
    await source.store.transaction((trx) => appendEvent(trx, event('waiting')))
    assert.deepEqual(await waiting(source.store), ['waiting'])

    const file = join(makeTempDir(), 'shop.jsonl')
    const exported = await petstore(['export', file], { DATABASE_URL: source.database.url })
    assert.equal(exported.code, 0, exported.stderr)
    assert.deepEqual(
      shopRows(file, 'events').map((row) => [row.id, JSON.parse(row.data as string).name]),
      [
        [1, 'numbered'],
        [null, 'waiting'],
      ],
    )

    const target = await open()
    const imported = await petstore(['import', file], { DATABASE_URL: target.database.url })
    assert.equal(imported.code, 0, imported.stderr)
    assert.deepEqual(await numbered(target.store), [[1, 'numbered']])
    assert.deepEqual(await waiting(target.store), ['waiting'])
    await numberEvents(target.store)
    assert.deepEqual(await numbered(target.store), [
      [1, 'numbered'],
      [2, 'waiting'],
    ])
  })
})

describe('a PostgreSQL export whose events were all purged, with one waiting for its id, into SQLite', () => {
  const databases: TestDatabase[] = []
  const stores: Store[] = []
  after(async () => {
    for (const store of stores) await store.close()
    for (const database of databases) await database.drop()
  })

  it('gives the waiting event an id above the retention mark, where a follower at the mark reads it', async () => {
    const source = await createTestDatabase('postgres')
    databases.push(source)
    const sourceStore = openStore(loadConfig({ DATABASE_URL: source.url }))
    stores.push(sourceStore)
    await migrateToLatest(sourceStore.admin)
    for (const name of ['one', 'two', 'three']) await sourceStore.transaction((trx) => appendEvent(trx, event(name)))
    await numberEvents(sourceStore)
    // The retention purge took every event: followers continue after 3.
    await sql`delete from events`.execute(sourceStore.admin)
    await sql`update event_retention set purged_through = 3`.execute(sourceStore.admin)
    await sourceStore.transaction((trx) => appendEvent(trx, event('waiting')))
    assert.deepEqual(await waitingEventNames(sourceStore), ['waiting'])

    const file = join(makeTempDir(), 'shop.jsonl')
    const exported = await petstore(['export', file], { DATABASE_URL: source.url })
    assert.equal(exported.code, 0, exported.stderr)
    assert.deepEqual(
      shopRows(file, 'events').map((row) => row.id),
      [null],
    )

    const target = await createTestDatabase('sqlite')
    databases.push(target)
    const imported = await petstore(['import', file], { DATABASE_URL: target.url })
    assert.equal(imported.code, 0, imported.stderr)
    const targetStore = openStore(loadConfig({ DATABASE_URL: target.url }))
    stores.push(targetStore)
    const rows = await sql<{ id: number; data: string }>`select id, data from events order by id`.execute(
      targetStore.admin,
    )
    assert.deepEqual(
      rows.rows.map((row) => [Number(row.id), JSON.parse(row.data).name]),
      [[4, 'waiting']],
    )
  })
})
