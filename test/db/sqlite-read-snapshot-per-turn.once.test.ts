// SQLite's reader reads the data version of a turn and the reads that follow it in that turn in one read
// transaction: those reads see exactly the rows of that version, and the transaction ends with the turn's
// callbacks, so that nothing read later sees an old snapshot.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { readSnapshotPerTurn } from '../../src/db/sqlite/read-snapshot-per-turn.js'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe('readSnapshotPerTurn', () => {
  let directory: string
  let writer: SqliteDatabase.Database
  let reader: SqliteDatabase.Database
  let readVersion: () => Promise<number>
  const count = () => reader.prepare<[], number>('select count(*) from things').pluck().get()
  const insert = () => writer.prepare('insert into things default values').run()

  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'read-snapshot-'))
    const path = join(directory, 'store.db')
    writer = new SqliteDatabase(path)
    writer.pragma('journal_mode = WAL')
    writer.exec('create table things (id integer primary key)')
    reader = new SqliteDatabase(path, { fileMustExist: true })
    readVersion = readSnapshotPerTurn(reader)
  })
  after(() => {
    reader.close()
    writer.close()
    rmSync(directory, { recursive: true, force: true })
  })

  it('gives the reads that follow the version the rows of that version, and ends with the turn', async () => {
    const version = await readVersion()
    assert.equal(reader.inTransaction, true)
    // A commit by another connection after the version was read is not seen by the reads of this turn...
    insert()
    assert.equal(count(), 0)
    await Promise.resolve()
    assert.equal(count(), 0, 'a later callback of the same turn reads the same snapshot')
    assert.equal(reader.inTransaction, true)

    // ...and is seen by anything after it, with a new version.
    await nextTurn()
    assert.equal(reader.inTransaction, false)
    assert.equal(count(), 1)
    const next = await readVersion()
    assert.notEqual(next, version)
    assert.equal(count(), 1)
  })

  it('ends the transaction before the poll phase that follows', async () => {
    await readVersion()
    const inTransactionLater = await new Promise<boolean>((resolve) => {
      // A timer runs in the next loop iteration's timers phase, before its poll phase.
      setTimeout(() => resolve(reader.inTransaction), 0)
    })
    assert.equal(inTransactionLater, false)
  })

  it('reads the version inside a transaction someone else began, and leaves it to them', async () => {
    reader.exec('begin')
    reader.prepare('select count(*) from things').get()
    insert()
    const version = await readVersion()
    await nextTurn()
    assert.equal(reader.inTransaction, true, "the other transaction is not the reader's to end")
    assert.equal(count(), 1, 'still the snapshot the other transaction took')
    reader.exec('commit')
    assert.equal(count(), 2)
    assert.notEqual(await readVersion(), version)
  })

  it('does not fail when the connection closes before the turn ends', async () => {
    const path = join(directory, 'closing.db')
    const closing = new SqliteDatabase(path)
    closing.pragma('journal_mode = WAL')
    const read = readSnapshotPerTurn(closing)
    const version = await read()
    assert.equal(typeof version, 'number')
    closing.close()
    // The end of the turn's transaction runs now: a COMMIT sent to the closed connection would throw from a
    // process.nextTick, an uncaught exception that fails this test.
    await nextTurn()
    assert.equal(closing.inTransaction, false)
  })
})
