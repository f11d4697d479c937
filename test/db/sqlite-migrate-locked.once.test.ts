// Migrating a SQLite database another process holds for writing: `petstore migrate` waits for the lock once, for
// the busy time-out, and then gives up with SQLITE_BUSY, which it reports as a lock held that long (trying again
// after each wait made it hang ten times as long as the refusal then said). A service that starts waits until the
// lock is released, saying so after each busy time-out, as it waits for the migrator's lock on PostgreSQL.
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import type { Database } from '../../src/db/database.js'
import { migrateToLatest, migrations } from '../../src/db/migrate.js'
import { migrateWhenUnlocked } from '../../src/db/migrate-when-unlocked.js'
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

  it('waits, when starting a service, for as many busy time-outs as the lock is held, then migrates', async () => {
    begins.length = 0
    holder.exec('drop table kysely_migration; drop table kysely_migration_lock')
    for (const name of migrator.prepare("select name from sqlite_master where type = 'table'").pluck().all())
      if (!String(name).startsWith('sqlite_')) holder.exec(`drop table "${String(name)}"`)
    holder.exec('begin immediate')
    const waits: number[] = []
    const report = await migrateWhenUnlocked(db, (milliseconds) => {
      waits.push(milliseconds)
      // Released after the third busy time-out spent in vain.
      if (waits.length === 3) holder.exec('rollback')
    })
    assert.deepEqual(report, { applied: Object.keys(migrations), newer: [] })
    // Each wait is told the time since the first attempt: one busy time-out (20 ms) more each time.
    const [first = 0, second = 0, third = 0] = waits
    assert.equal(waits.length, 3)
    assert.ok(first >= 15 && first < second && second < third, JSON.stringify(waits))
    assert.deepEqual(begins, Array(4).fill('begin immediate'))
  })

  it('gives up at once on an error other than the lock', async () => {
    const readOnlyPath = join(directory, 'read-only.db')
    new SqliteDatabase(readOnlyPath).close()
    const readOnly = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new SqliteDatabase(readOnlyPath, { readonly: true }) }),
    })
    let waited = 0
    try {
      await assert.rejects(
        migrateWhenUnlocked(readOnly, () => waited++),
        {
          message: 'migration (unknown) failed: SqliteError: attempt to write a readonly database',
        },
      )
    } finally {
      await readOnly.destroy()
    }
    assert.equal(waited, 0)
  })
})
