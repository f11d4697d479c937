// PostgreSQL: the rows the numbering moves out of event_inbox are reclaimed by the next sweep (a VACUUM of the
// inbox), not left for autovacuum, which comes once a minute at best: until then every numbering reads them all.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import { startTestServer, type TestServer } from '../helpers/server.js'

const PETS = 300
/** Sweeps five times as often as by default: the backing off below is counted in sweeps, not in seconds. */
const SWEEP_MS = 200

describe('the event inbox on postgres', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ tuning: { eventSweepIntervalMs: SWEEP_MS } })
  })
  after(() => server.close())

  const inboxPages = async () =>
    Number(
      (await sql<{ pages: string }>`select pg_relation_size('event_inbox') / 8192 as pages`.execute(server.store.admin))
        .rows[0]?.pages,
    )

  const createPets = async (count: number) => {
    for (let start = 0; start < count; start += 30)
      await Promise.all(
        Array.from({ length: Math.min(30, count - start) }, async (_, index) => {
          const response = await server.request('/v1/pets', { json: { name: `v${start + index}`, categoryId: 1 } })
          assert.equal(response.status, 201)
          await response.arrayBuffer()
        }),
      )
  }

  const feedIds = async (after: number, count: number) => {
    // The numbering follows each commit: the last events are readable a moment after their 201.
    const deadline = Date.now() + 10_000
    let ids: number[] = []
    while (ids.length < count && Date.now() < deadline) {
      const feed = await server.request(`/v1/events?after=${after}&limit=${count}`)
      assert.equal(feed.status, 200)
      ids = ((await feed.json()) as { id: number }[]).map((event) => event.id)
    }
    return ids
  }

  const untilNoPage = async () => {
    // A VACUUM reclaims the moved rows only once no transaction in the database can still see them: other test
    // files' open transactions (some held open on purpose) delay it, so this wait has a deadline of its own.
    const deadline = Date.now() + 30_000
    let pages = await inboxPages()
    while (pages > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      pages = await inboxPages()
    }
    return pages
  }

  const inboxVacuums = async () =>
    Number(
      (
        await sql<{ vacuums: string }>`select vacuum_count as vacuums from pg_stat_user_tables
          where schemaname = current_schema() and relname = 'event_inbox'`.execute(server.store.admin)
      ).rows[0]?.vacuums ?? 0,
    )

  it('is vacuumed by the sweep after numberings, down to no page at all', async () => {
    await createPets(PETS)
    assert.deepEqual(
      await feedIds(0, PETS),
      Array.from({ length: PETS }, (_, index) => index + 1),
    )
    // Every event is numbered, so the inbox holds only moved rows until the next sweep vacuums it.
    assert.equal(await untilNoPage(), 0)
  })

  it('is vacuumed again by later sweeps, backing off, when a transaction elsewhere held the rows back', async () => {
    const elsewhere = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await elsewhere.connect()
    try {
      // A snapshot taken before the events are moved can see them in the inbox: no vacuum may reclaim them.
      await elsewhere.query('begin isolation level repeatable read')
      await elsewhere.query('select 1')
      await createPets(30)
      assert.equal((await feedIds(PETS, 30)).length, 30)
      const vacuumsBefore = await inboxVacuums()
      const deadline = Date.now() + 10_000
      while ((await inboxVacuums()) === vacuumsBefore && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100))
      assert.ok((await inboxVacuums()) > vacuumsBefore, 'a sweep vacuumed the inbox while the snapshot was held')
      assert.ok((await inboxPages()) > 0, 'the held rows are still there')
      // While the snapshot holds, the sweeps vacuum again less and less often: 1, 2, 4… sweeps apart.
      const heldFrom = await inboxVacuums()
      await new Promise((resolve) => setTimeout(resolve, 7 * SWEEP_MS))
      const heldVacuums = (await inboxVacuums()) - heldFrom
      assert.ok(heldVacuums >= 1 && heldVacuums <= 4, `${heldVacuums} vacuums in 7 sweeps of a held snapshot`)
      await elsewhere.query('commit')
    } finally {
      await elsewhere.end()
    }
    // No event moves after this: only a sweep that vacuums again reclaims the rows.
    assert.equal(await untilNoPage(), 0)
  })

  it('numbers new events at once while a vacuum waits to truncate the inbox a transaction has read', async () => {
    const [{ schema } = { schema: '' }] = (
      await sql<{ schema: string }>`select current_schema() as schema`.execute(server.store.admin)
    ).rows
    const elsewhere = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await elsewhere.connect()
    try {
      await elsewhere.query(`set search_path to ${schema}`)
      // An idle psql (or a pg_dump) that read the inbox holds a lock that a vacuum emptying it waits for, to
      // truncate it: up to the statement time-out.
      await elsewhere.query('begin')
      await elsewhere.query('select count(*) from event_inbox')
      const before = (await feedIds(0, 1000)).at(-1) ?? 0
      await createPets(30)
      assert.equal((await feedIds(before, 30)).length, 30)
      // The sweep's vacuum is under way on this schema's inbox (it holds this lock until it ends).
      const vacuuming = async () =>
        (
          await sql<{ held: boolean }>`select exists (select 1 from pg_locks where relation = 'event_inbox'::regclass
            and mode = 'ShareUpdateExclusiveLock' and granted) as held`.execute(server.store.admin)
        ).rows[0]?.held === true
      const deadline = Date.now() + 10_000
      while (!(await vacuuming()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      assert.ok(await vacuuming(), 'a sweep is vacuuming the inbox')
      const poll = server.request(`/v1/events?after=${before + 30}&wait=3`)
      const created = await server.request('/v1/pets', { json: { name: 'during the vacuum', categoryId: 1 } })
      assert.equal(created.status, 201)
      const { id } = (await created.json()) as { id: number }
      const answeredAfter = performance.now()
      const page = await poll
      assert.equal(page.status, 200)
      const events = (await page.json()) as { id: number; type: string; data: { pet: { id: number } } }[]
      assert.deepEqual(
        events.map((event) => [event.id, event.type, event.data.pet.id]),
        [[before + 31, 'pet.created', id]],
      )
      assert.ok(performance.now() - answeredAfter < 1000, 'the event was numbered while the vacuum waited')
      assert.ok(await vacuuming(), 'the vacuum was still waiting when the event was read')
    } finally {
      await elsewhere.query('commit')
      await elsewhere.end()
    }
  })
})
