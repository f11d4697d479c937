// An import into a database a newer petstore migrated (an operator ran that version's migrate on the new database,
// then imported with this one) is refused as the export refuses such a database, and leaves it as it was. It used
// to load the rows into a schema this petstore does not know: on SQLite without a word, on PostgreSQL refused as a
// file "edited after its export" when the newer schema had a column of its own to fill.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { SCHEMA_VERSION } from '../../src/move/format.js'
import { petstore } from '../helpers/move.js'
import { makeTempDir, startTestServer } from '../helpers/server.js'
import { createTestDatabase, runOnTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'
import { storedRows } from '../helpers/stored-rows.js'

const directory = makeTempDir()
const exported = join(directory, 'shop.jsonl')
const databases: TestDatabase[] = []

before(async () => {
  const source = await createTestDatabase('sqlite')
  databases.push(source)
  const server = await startTestServer({ database: source })
  try {
    assert.equal((await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })).status, 201)
  } finally {
    await server.close()
  }
  const result = await petstore(['export', exported], { DATABASE_URL: source.url })
  assert.equal(result.code, 0, result.stderr)
})
after(async () => {
  for (const database of databases) await database.drop()
})

describe(`petstore import into a ${TEST_STORE} database a newer petstore migrated`, () => {
  it('is refused, naming its schema, and changes nothing', async () => {
    const target = await createTestDatabase()
    databases.push(target)
    assert.equal((await petstore(['migrate'], { DATABASE_URL: target.url })).code, 0)
    await runOnTestDatabase(
      target,
      "insert into kysely_migration (name, timestamp) values ('9999_pet_colours', '2027-01-01')",
      'create table pet_colours (pet_id bigint not null, colour text not null)',
    )

    const result = await petstore(['import', exported], { DATABASE_URL: target.url })
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.equal(
      result.stderr.split('\n').slice(1).join('\n'),
      `petstore: import refused, nothing changed: the database's schema 9999_pet_colours is newer than this ` +
        `petstore's (${SCHEMA_VERSION}): import with the petstore that migrated it\n`,
    )
    assert.deepEqual(await storedRows(target, 'select id from pets'), [])
    assert.deepEqual(await storedRows(target, "select name from kysely_migration where name like '9999%'"), [
      { name: '9999_pet_colours' },
    ])
  })
})
