// An import into a PostgreSQL schema that holds another application's table of the same name as one of the shop's
// is refused with the migration's own reason, and leaves the schema as it was. The reason used to be replaced by
// "current transaction is aborted", from the statement that released the migrations' lock afterwards.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { petstore } from '../helpers/move.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'
import { makeTempDir } from '../helpers/temp.js'

const directory = makeTempDir()
const source = join(directory, 'source.db')
const exported = join(directory, 'shop.jsonl')

describe("petstore import into a PostgreSQL schema holding another application's table", () => {
  let target: TestDatabase
  let client: pg.Client
  before(async () => {
    assert.equal((await petstore(['migrate'], { DATABASE_URL: `file:${source}` })).code, 0)
    assert.equal((await petstore(['export', exported], { DATABASE_URL: `file:${source}` })).code, 0)
    target = await createTestDatabase('postgres')
    client = new pg.Client({ connectionString: target.url })
    await client.connect()
    await client.query('create table pets (tag text)')
    await client.query("insert into pets values ('theirs')")
  })
  after(async () => {
    await client.end()
    await target.drop()
  })

  it("names the migration and PostgreSQL's reason, and changes nothing", async () => {
    const result = await petstore(['import', exported], { DATABASE_URL: target.url })
    assert.equal(result.code, 1)
    assert.equal(
      result.stderr.split('\n').slice(1).join('\n'),
      'petstore: import refused, nothing changed: migration 0001_initial failed: error: relation "pets" already ' +
        'exists\n',
    )
    const { rows: tables } = await client.query<{ name: string }>(
      'select tablename as name from pg_tables where schemaname = current_schema() order by 1',
    )
    assert.deepEqual(tables, [{ name: 'pets' }])
    assert.deepEqual((await client.query('select tag from pets')).rows, [{ tag: 'theirs' }])
  })
})
