// The settings of SQLite's two connections: both durable (WAL, synchronous=FULL, foreign keys, a busy
// timeout), the reader read-only, and each with its own page cache (the reader's larger: it serves every read).
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { BUSY_TIMEOUT_MS, openSqlite, type SqliteStore } from '../../src/db/sqlite.js'
import { makeTempDir } from '../helpers/temp.js'

describe('openSqlite connections', () => {
  let directory: string
  let store: SqliteStore
  before(() => {
    directory = makeTempDir()
    store = openSqlite(join(directory, 'store.db'))
  })
  after(async () => {
    await store.close()
    rmSync(directory, { recursive: true, force: true })
  })

  // The first column of the PRAGMA's answer, as `pragma(name, { simple: true })` gives it on a handle.
  const writerSetting = async (name: string): Promise<unknown> => {
    const { rows } = await sql<Record<string, unknown>>`pragma ${sql.raw(name)}`.execute(store.admin)
    return Object.values(rows[0] ?? {})[0]
  }

  it('makes the writer durable, with a 2 MiB page cache', async () => {
    assert.deepEqual(
      {
        journal_mode: await writerSetting('journal_mode'),
        synchronous: await writerSetting('synchronous'),
        foreign_keys: await writerSetting('foreign_keys'),
        timeout: await writerSetting('busy_timeout'),
        cache_size: await writerSetting('cache_size'),
        query_only: await writerSetting('query_only'),
      },
      {
        journal_mode: 'wal',
        synchronous: 2,
        foreign_keys: 1,
        timeout: BUSY_TIMEOUT_MS,
        cache_size: -2000,
        query_only: 0,
      },
    )
  })

  it('makes the reader read-only, with a 16 MiB page cache', () => {
    const reader = store.sqliteReader
    assert.ok(reader, 'a store on a file has a reader')
    const setting = (name: string) => reader.pragma(name, { simple: true }) as unknown
    assert.deepEqual(
      {
        journal_mode: setting('journal_mode'),
        synchronous: setting('synchronous'),
        timeout: setting('busy_timeout'),
        cache_size: setting('cache_size'),
        query_only: setting('query_only'),
      },
      { journal_mode: 'wal', synchronous: 2, timeout: BUSY_TIMEOUT_MS, cache_size: -16000, query_only: 1 },
    )
    assert.throws(() => reader.exec('create table refused (id integer)'), { code: 'SQLITE_READONLY' })
  })
})
