// A write waiting for SQLite's write lock, held by another process, waits for the busy time-out by the monotonic
// clock: a step of the wall clock forward (an NTP correction, a resumed virtual machine) must not give it up at
// once, nor a step back keep it waiting for the size of the step.
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import SqliteDatabase from 'better-sqlite3'
import { sql } from 'kysely'
import { loadConfig } from '../../src/config.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { openStore, type Store } from '../../src/db/store.js'
import { makeTempDir } from '../helpers/temp.js'
import { stepWallClock } from '../helpers/wall-clock.js'

describe('a SQLite write waiting for the write lock while the wall clock steps', () => {
  const directory = makeTempDir()
  const path = join(directory, 'p.db')
  let store: Store
  let holder: SqliteDatabase.Database

  before(async () => {
    store = openStore(loadConfig({ DATABASE_URL: `file:${path}` }))
    await migrateToLatest(store.admin)
    holder = new SqliteDatabase(path, { timeout: 0 })
  })
  after(async () => {
    stepWallClock(0)
    holder.close()
    await store.close()
    rmSync(directory, { recursive: true, force: true })
  })

  it('is committed once the other process lets go, though the wall clock jumped an hour ahead meanwhile', async () => {
    holder.exec('begin immediate')
    const write = store.transaction((trx) => sql`create table marker (x integer)`.execute(trx))
    await sleep(20)
    stepWallClock(3_600_000)
    await sleep(50)
    holder.exec('rollback')
    await write
    stepWallClock(0)
    const tables = await sql<{ name: string }>`select name from sqlite_master where name = 'marker'`.execute(
      store.admin,
    )
    assert.deepEqual(tables.rows, [{ name: 'marker' }])
  })
})
