// The names PostgreSQL statements are prepared under (src/db/postgres-statements.ts): a statement over a list
// has a text for every length of its list, and those texts must not take the names the service's fixed
// statements need. The texts are compiled by Kysely for PostgreSQL, as the webhook deliverer's batches make them.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely'
import type { Database } from '../../src/db/database.js'
import { StatementNames } from '../../src/db/postgres-statements.js'

const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
})

const lengths = Array.from({ length: 300 }, (_, index) => index + 1)
const ids = (length: number) => Array.from({ length }, (_, index) => index + 1)

/** `update … where id in ($2, $3, …)`: the claim of a batch of due deliveries. */
const leaseText = (length: number) =>
  db.updateTable('webhook_deliveries').set({ due_at: 1, lease_token: 'token' }).where('id', 'in', ids(length)).compile()
    .sql

/** `… where ("id", "attempts") in (($2, $3), ($4, $5), …)`: a batch of attempts recorded. */
const outcomeText = (length: number) =>
  db
    .updateTable('webhook_deliveries')
    .set({ status: 'succeeded' })
    .where(({ eb, refTuple, tuple }) =>
      eb(
        refTuple('id', 'attempts'),
        'in',
        ids(length).map((id) => tuple(id, 1)),
      ),
    )
    .compile().sql

const getPetText = db.selectFrom('pets').selectAll().where('id', '=', 1).compile().sql

describe('the names statements are prepared under on PostgreSQL', () => {
  it('names at most four lengths of a statement over a list, so the fixed statements still get names', () => {
    const names = new StatementNames()
    const leaseNames = lengths.map((length) => names.nameOf(leaseText(length)))
    const outcomeNames = lengths.map((length) => names.nameOf(outcomeText(length)))
    assert.deepEqual(leaseNames.slice(0, 5), ['petstore_1', 'petstore_2', 'petstore_3', 'petstore_4', undefined])
    assert.deepEqual(new Set(leaseNames.slice(4)), new Set([undefined]))
    assert.deepEqual(outcomeNames.slice(0, 5), ['petstore_5', 'petstore_6', 'petstore_7', 'petstore_8', undefined])
    assert.deepEqual(new Set(outcomeNames.slice(4)), new Set([undefined]))

    assert.equal(names.nameOf(getPetText), 'petstore_9')
    // A name keeps meaning its text: asked again, the same.
    assert.equal(names.nameOf(leaseText(2)), 'petstore_2')
    assert.equal(names.nameOf(leaseText(200)), undefined)
  })

  it('tells apart statements that differ in more than the length of a list', () => {
    const names = new StatementNames()
    const texts = [
      getPetText,
      db.selectFrom('pets').selectAll().where('name', '=', 'Rex').compile().sql,
      db.selectFrom('pets').select(['id', 'name']).where('id', '=', 1).compile().sql,
      db.selectFrom('orders').selectAll().where('id', '=', 1).compile().sql,
      db.insertInto('categories').values({ id: 1, name: 'Dogs', name_key: 'dogs', version: 1 }).compile().sql,
      db.insertInto('categories').values({ id: 1, name: 'Dogs', name_key: 'dogs' }).compile().sql,
    ]
    assert.deepEqual(
      texts.map((text) => names.nameOf(text)),
      ['petstore_1', 'petstore_2', 'petstore_3', 'petstore_4', 'petstore_5', 'petstore_6'],
    )
  })

  it('gives a text found stale a new name without using up its shape', () => {
    const names = new StatementNames()
    for (let migration = 1; migration <= 6; migration += 1) {
      const name = names.nameOf(leaseText(1))
      assert.equal(name, `petstore_${migration}`)
      names.forget(leaseText(1), name)
    }
    assert.deepEqual(
      [2, 3, 4, 5, 6].map((length) => names.nameOf(leaseText(length))),
      ['petstore_7', 'petstore_8', 'petstore_9', 'petstore_10', undefined],
    )
  })
})
