// A shop whose events the retention purge has all removed holds no event row, only the retention mark. Moved
// into either store, its next event must still get the id after the mark: a follower at `after=<mark>` sees it,
// and an id at or below the mark (a new count from 1) would never be seen by anyone.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { purgeOldEvents } from '../../src/events/event-purge.js'
import { petstore, shopRows } from '../helpers/move.js'
import { makeTempDir, startTestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

const directory = makeTempDir()
const exported = join(directory, 'purged.jsonl')
const databases: TestDatabase[] = []
const onPostgres = !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL'

before(async () => {
  const source = await createTestDatabase('sqlite')
  databases.push(source)
  const server = await startTestServer({ database: source })
  try {
    for (const name of ['Rex', 'Tom', 'Kit'])
      assert.equal((await server.request('/v1/pets', { json: { name, categoryId: 1 } })).status, 201)
    // Two days on, with one day of retention: every event is purged.
    await purgeOldEvents({ data: server.store, retentionDays: 1 }, new Date(Date.now() + 2 * 86_400_000))
    assert.deepEqual(await (await server.request('/v1/events?after=3')).json(), [])
  } finally {
    await server.close()
  }
  const result = await petstore(['export', exported], { DATABASE_URL: source.url })
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(shopRows(exported, 'events'), [])
  assert.deepEqual(shopRows(exported, 'event_retention'), [{ purged_through: 3 }])
})
after(async () => {
  for (const database of databases) await database.drop()
})

for (const store of ['sqlite', 'postgres'] as const) {
  describe(
    `a shop with every event purged, imported into ${store}`,
    { skip: store === 'postgres' && onPostgres },
    () => {
      it('gives its next event the id after the retention mark', async () => {
        const target = await createTestDatabase(store)
        databases.push(target)
        const result = await petstore(['import', exported], { DATABASE_URL: target.url })
        assert.equal(result.code, 0, result.stderr)
        const server = await startTestServer({ database: target })
        try {
          assert.equal((await server.request('/v1/pets', { json: { name: 'After', categoryId: 1 } })).status, 201)
          // A long poll: on PostgreSQL the event is numbered just after its commit, by then or a moment later.
          const events = (await (await server.request('/v1/events?after=3&wait=10')).json()) as {
            id: number
            type: string
          }[]
          assert.deepEqual(
            events.map(({ id, type }) => ({ id, type })),
            [{ id: 4, type: 'pet.created' }],
          )
        } finally {
          await server.close()
        }
      })
    },
  )
}
