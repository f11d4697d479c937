// Migrating a SQLite database another process holds for writing: the migrations wait for the lock once, for the
// busy time-out, and then give up with SQLITE_BUSY, which the command reports as a lock held that long. Trying again
// after each wait made `petstore migrate` (and `petstore serve`) hang ten times as long as the refusal then said.
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import type { Database } from '../../src/db/database.js'
import { migrateToLatest, migrations } from '../../src/db/migrate.js'
import { makeTempDir } from '../helpers/temp.js'

describe('migrating a SQLite database another process holds for writing', () => {
  const directory = makeTempDir()
  const path = join(directory, 'p.db')
  let holder: SqliteDatabase.Database
  let migrator: SqliteDatabase.Database
  let db: Kysely<Database>
  const begins: string[] = []

  before(() => {
    holder = new SqliteDatabase(path)
    holder.pragma('journal_mode = WAL')
    holder.exec('begin immediate')
    migrator = new SqliteDatabase(path)
    // A short busy time-out keeps the wait short; how many times the lock is waited for is what is counted.
    migrator.pragma('busy_timeout = 20')
    db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: migrator }),
      log: (event) => {
        if (/^begin/i.test(event.query.sql)) begins.push(event.query.sql)
      },
    })
  })
  after(async () => {
    await db.destroy()
    holder.close()
    rmSync(directory, { recursive: true, force: true })
  })

  it('waits for the lock once, then fails with SQLITE_BUSY; once the lock is released, migrates', async () => {
    await assert.rejects(migrateToLatest(db), { code: 'SQLITE_BUSY', message: 'database is locked' })
    assert.deepEqual(begins, ['begin immediate'])

    holder.exec('rollback')
    const report = await migrateToLatest(db)
    assert.deepEqual(report, { applied: Object.keys(migrations), newer: [] })
    assert.deepEqual(begins, ['begin immediate', 'begin immediate'])
  })
})
