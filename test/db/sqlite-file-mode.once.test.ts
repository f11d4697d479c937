// A SQLite database the service creates is its owner's alone (mode 0600), with its -wal and -shm files: it holds the
// keys' digests, the sealed webhook secrets and, without WEBHOOK_SECRET_KEY, the key that opens them, as an export
// does, which is written with mode 0600. Under the usual umask (022) the file used to be readable by every user of
// the machine. A file that exists keeps the mode its operator gave it.
import assert from 'node:assert/strict'
import { chmodSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { sql } from 'kysely'
import { openSqlite } from '../../src/db/sqlite.js'
import { petstore } from '../helpers/move.js'
import { makeTempDir } from '../helpers/temp.js'

const directory = makeTempDir()
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8)

describe('the mode of a SQLite database file', () => {
  after(() => rmSync(directory, { recursive: true, force: true }))

  it('creates the file, its -wal and its -shm for their owner only', async () => {
    const path = join(directory, 'new', 'petstore.db')
    const store = openSqlite(path)
    try {
      await sql`create table t (x integer)`.execute(store.admin)
      assert.deepEqual([mode(path), mode(`${path}-wal`), mode(`${path}-shm`)], ['600', '600', '600'])
    } finally {
      await store.close()
    }
  })

  it('gives an imported shop the same mode', async () => {
    const source = join(directory, 'source.db')
    const exported = join(directory, 'shop.jsonl')
    const target = join(directory, 'imported.db')
    assert.equal((await petstore(['migrate'], { DATABASE_URL: `file:${source}` })).code, 0)
    assert.equal((await petstore(['export', exported], { DATABASE_URL: `file:${source}` })).code, 0)
    const imported = await petstore(['import', exported], { DATABASE_URL: `file:${target}` })
    assert.equal(imported.code, 0, imported.stderr)
    assert.deepEqual([mode(source), mode(target)], ['600', '600'])
  })

  it('leaves the mode of a file that exists as it was', async () => {
    const path = join(directory, 'existing.db')
    writeFileSync(path, '')
    chmodSync(path, 0o640)
    const store = openSqlite(path)
    await store.close()
    assert.equal(mode(path), '640')
  })
})
