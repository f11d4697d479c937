// PostgreSQL: the rows the numbering moves out of event_inbox are reclaimed by the next sweep (a VACUUM of the
// inbox), not left for autovacuum, which comes once a minute at best: until then every numbering reads them all.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { startTestServer, type TestServer } from '../helpers/server.js'

const PETS = 300

describe('the event inbox on postgres', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  const inboxPages = async () =>
    Number(
      (await sql<{ pages: string }>`select pg_relation_size('event_inbox') / 8192 as pages`.execute(server.store.admin))
        .rows[0]?.pages,
    )

  it('is vacuumed by the sweep after numberings, down to no page at all', async () => {
    for (let start = 0; start < PETS; start += 30)
      await Promise.all(
        Array.from({ length: 30 }, async (_, index) => {
          const response = await server.request('/v1/pets', { json: { name: `v${start + index}`, categoryId: 1 } })
          assert.equal(response.status, 201)
          await response.arrayBuffer()
        }),
      )
    // The numbering follows each commit: the last events are readable a moment after their 201.
    const deadline = Date.now() + 10_000
    let ids: number[] = []
    while (ids.length < PETS && Date.now() < deadline) {
      const feed = await server.request(`/v1/events?after=0&limit=${PETS}`)
      assert.equal(feed.status, 200)
      ids = ((await feed.json()) as { id: number }[]).map((event) => event.id)
    }
    assert.deepEqual(
      ids,
      Array.from({ length: PETS }, (_, index) => index + 1),
    )
    // Every event is numbered, so the inbox holds only moved rows until the sweep (once a second) vacuums it. A
    // VACUUM reclaims them only once no transaction in the database can still see them: other test files' open
    // transactions (some held open on purpose) delay it, so this wait has a deadline of its own.
    const vacuumDeadline = Date.now() + 30_000
    let pages = await inboxPages()
    while (pages > 0 && Date.now() < vacuumDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      pages = await inboxPages()
    }
    assert.equal(pages, 0)
  })
})
