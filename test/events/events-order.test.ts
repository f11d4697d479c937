// The feed's one guarantee: a reader that follows `after` never skips an event and never sees one twice, even when
// transactions commit out of id order. First the interleavings that break a feed of sequence ids, made on purpose
// (PostgreSQL: only there do writers run at once); then two instances on one database, 20 writers and 3 readers
// following the feed with long polls through both instances, and every reader's list compared with the table.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { runUnitOfWork } from '../../src/db/unit-of-work.js'
import { recordEvent } from '../../src/events/event-log.js'
import { barrier, followUntil, readFeed, summarise, type FeedEvent } from '../helpers/events.js'
import { addPet, type Pet } from '../helpers/orders.js'
import { instancesForSuite } from '../helpers/instances.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { storedRows } from '../helpers/stored-rows.js'
import { TEST_STORE, type TestDatabase } from '../helpers/store.js'

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((done) => (resolve = done))
  return { promise, resolve }
}

describe(
  'transactions that commit out of order (PostgreSQL)',
  { skip: TEST_STORE === 'sqlite' ? 'SQLite runs one write transaction at a time' : false },
  () => {
    let server: TestServer
    const get = (path: string, init?: RequestInit) => server.request(path, init)
    /** Events from `after` until `pet`'s pet.updated is listed. */
    const until = (after: number, pet: Pet) =>
      followUntil(
        get,
        after,
        (event: FeedEvent) => event.type === 'pet.updated' && 'pet' in event.data && event.data.pet.id === pet.id,
      )
    before(async () => {
      // The sweep numbers the events written straight into the store: every 100 ms rather than every second, so
      // that each test waits for it no longer than it must.
      server = await startTestServer({ tuning: { eventSweepIntervalMs: 100 } })
    })
    after(() => server.close())

    /**
     * A transaction that inserts a pet.updated event for `pet` when told to, and commits when told to: the steps
     * of concurrent writers, in any order a test chooses. Written straight into the store, its event is numbered
     * by the service's sweep (as one of a crashed instance would be).
     */
    function openTransaction(pet: Pet) {
      const write = deferred()
      const written = deferred()
      const commit = deferred()
      const done = runUnitOfWork(server.store, async (uow) => {
        const { trx } = uow
        await write.promise
        await recordEvent(uow, 'pet.updated', { pet })
        // The event's insert waits for the COMMIT to be sent with it; a statement after it sends it now.
        await sql`select 1`.execute(trx)
        written.resolve()
        await commit.promise
      })
      return {
        async write() {
          write.resolve()
          await written.promise
        },
        async commit() {
          write.resolve()
          commit.resolve()
          await done
        },
      }
    }

    /** Two pets and the id of the newest event once they exist. */
    async function twoPets(): Promise<[Pet, Pet, number]> {
      const first = await addPet(server, 'available', 'First')
      const second = await addPet(server, 'available', 'Second')
      return [first, second, await barrier(get)]
    }

    it("lists a transaction's event while one that inserted its event earlier is still open, and that \
one's next", async () => {
      const [first, second, start] = await twoPets()
      const older = openTransaction(first)
      await older.write()
      const newer = openTransaction(second)
      await newer.commit()
      const whileOpen = await until(start, second)
      assert.deepEqual(summarise(whileOpen), [`pet.updated pet ${second.id} available`])
      assert.equal(whileOpen[0]?.id, start + 1)
      await older.commit()
      const next = await until(start + 1, first)
      assert.deepEqual(summarise(next), [`pet.updated pet ${first.id} available`])
      assert.equal(next[0]?.id, start + 2, 'numbered when it committed: the next id')
    })

    it('does not lose the event of a transaction that inserted it first and committed last', async () => {
      // With ids taken at insert the first transaction would hold the smaller id and commit it last: a reader
      // already past the larger one would never see it.
      const [first, second, start] = await twoPets()
      const older = openTransaction(first)
      const newer = openTransaction(second)
      await older.write()
      await newer.write()
      await newer.commit()
      const firstRead = await until(start, second)
      await older.commit()
      const seen = [...firstRead, ...(await until(firstRead.at(-1)?.id ?? start, first))]
      assert.deepEqual(summarise(seen), [
        `pet.updated pet ${second.id} available`,
        `pet.updated pet ${first.id} available`,
      ])
      assert.deepEqual(
        seen.map((event) => event.id),
        [start + 1, start + 2],
      )
    })

    it("numbers a transaction's events one after another, after every event before them", async () => {
      const pet = await addPet(server, 'available', 'Numbered')
      const start = await barrier(get)
      await runUnitOfWork(server.store, async (uow) => {
        for (let written = 0; written < 3; written++) await recordEvent(uow, 'pet.updated', { pet })
      })
      const listed = await followUntil(get, start, (event) => event.id === start + 3)
      assert.deepEqual(
        listed.map((event) => event.id),
        [start + 1, start + 2, start + 3],
      )
      assert.deepEqual(summarise(listed), Array(3).fill(`pet.updated pet ${pet.id} available`))
    })

    it('answers a waiting long poll once a transaction still open commits', async () => {
      const [first, , start] = await twoPets()
      const older = openTransaction(first)
      await older.write()
      const waiting = readFeed(get, `after=${start}&wait=30`)
      await older.commit()
      const answered = await waiting
      assert.deepEqual(summarise(answered.events), [`pet.updated pet ${first.id} available`])
      assert.equal(answered.events[0]?.id, start + 1)
    })
  },
)

/** The load's length; PETSTORE_TEST_EVENT_LOAD_SECONDS overrides it. */
const LOAD_SECONDS = Number(process.env.PETSTORE_TEST_EVENT_LOAD_SECONDS ?? (TEST_STORE === 'postgres' ? 20 : 10))
const WRITERS = 20
const READERS = 3
const KEY = 'events-order-static-key-0123'

/**
 * The ids in the table once every acknowledged event is numbered: on PostgreSQL an instance numbers after its
 * commit, and until then the event waits in event_inbox.
 */
async function storedEventIds(database: TestDatabase): Promise<number[]> {
  const deadline = Date.now() + 10_000
  if (TEST_STORE === 'postgres') {
    for (;;) {
      const [waiting] = await storedRows<{ count: number | string }>(database, 'select count(*) from event_inbox')
      if (Number(waiting?.count) === 0) break
      assert.ok(Date.now() < deadline, `${String(waiting?.count)} events still wait for their ids after 10 s`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const rows = await storedRows<{ id: number | string }>(database, 'select id from events order by id')
  return rows.map((row) => Number(row.id))
}

describe(`two instances on one ${TEST_STORE} database: ${WRITERS} writers, ${READERS} readers following the \
feed`, () => {
  const suite = instancesForSuite({ PETSTORE_API_KEYS: KEY })

  it(`each reader sees every event exactly once, in ascending order, and the events are exactly the table's \
(${LOAD_SECONDS} s)`, async (t) => {
    const { instances, database } = suite
    assert.ok(database)
    let turn = 0
    /** Each request to the next instance in turn: a position read from one is used on the other. */
    const call = (path: string, init: RequestInit = {}) => {
      const instance = instances[turn++ % instances.length]
      assert.ok(instance)
      return fetch(instance.baseUrl + path, {
        ...init,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...init.headers },
      })
    }
    const post = async (path: string, body?: unknown) => {
      const response = await call(path, {
        method: body === undefined ? 'DELETE' : 'POST',
        ...(body === undefined || body === null ? {} : { body: JSON.stringify(body) }),
      })
      const text = await response.text()
      assert.ok(response.status === 200 || response.status === 201, `${path}: ${response.status} ${text}`)
      return JSON.parse(text) as { id: number }
    }

    const deadline = Date.now() + LOAD_SECONDS * 1000
    const acknowledged = { pets: 0, orders: 0, finished: 0 }
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let round = 0; Date.now() < deadline; round++) {
        const pet = await post('/v1/pets', { name: `w${writer}-${round}`, categoryId: writer + 1 })
        acknowledged.pets++
        const order = await post('/v1/store/orders', { petId: pet.id })
        acknowledged.orders++
        if (round % 2 === 0) await post(`/v1/store/orders/${order.id}`)
        else await post(`/v1/store/orders/${order.id}/complete`, null)
        acknowledged.finished++
      }
    })
    /** The last event id in the table once the writers are done: where the readers may stop. */
    const end: { last?: number } = {}
    const readers = Array.from({ length: READERS }, async () => {
      const seen: number[] = []
      let position = 0
      while (end.last === undefined || position < end.last) {
        const page = await readFeed(call, `after=${position}&limit=${1 + Math.floor(Math.random() * 200)}&wait=1`)
        seen.push(...page.events.map((event) => event.id))
        position = page.nextAfter
      }
      return seen
    })
    await Promise.all(writers)
    const stored = await storedEventIds(database)
    end.last = stored.at(-1) ?? 0
    const seenByReaders = await Promise.all(readers)

    // Every acknowledged change has its event: a pet.created per pet, order.placed and pet.updated per order,
    // order.cancelled or completed and pet.updated per finished order.
    assert.equal(stored.length, acknowledged.pets + 2 * acknowledged.orders + 2 * acknowledged.finished)
    assert.deepEqual(
      stored,
      stored.map((_, index) => index + 1),
      'the ids are consecutive from 1',
    )
    for (const [reader, seen] of seenByReaders.entries()) {
      assert.equal(seen.length, stored.length, `reader ${reader} saw ${seen.length} events of ${stored.length}`)
      assert.deepEqual(seen, stored, `reader ${reader} saw exactly the table's events, in ascending order`)
    }
    t.diagnostic(
      `${stored.length} events from ${acknowledged.pets} pets, ${acknowledged.orders} orders, ` +
        `${acknowledged.finished} finished orders in ${LOAD_SECONDS} s; ${READERS} readers saw each exactly once`,
    )
  })
})
