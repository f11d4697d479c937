// PostgreSQL: a numbering never parts one transaction's events. Those it left waiting would be numbered by the
// next one, after the events of any older transaction that committed in between: an order's event and its pet's,
// written in one transaction, would no longer have the consecutive ids the feed promises.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import type { Writer } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { numberCommittedEvents } from '../../src/db/postgres/number-events.js'
import type { Store } from '../../src/db/store.js'
import { appendEvent } from '../../src/events/event.repository.js'
import { seededRandom } from '../helpers/model/seeded-random.js'
import { openTestStore } from '../helpers/opened-store.js'

describe('numbering the waiting events on postgres', () => {
  let store: Store
  let closeStore: () => Promise<void>
  before(async () => {
    ;({ store, close: closeStore } = await openTestStore())
    await migrateToLatest(store.admin)
  })
  after(() => closeStore())

  const append = (trx: Writer, name: string) =>
    appendEvent(trx, { type: 'pet.created', occurredAt: '2026-11-01T00:00:00.000Z', data: JSON.stringify({ name }) })
  const commitEvents = (...names: string[]) =>
    store.admin.transaction().execute(async (trx) => {
      for (const name of names) await append(trx, name)
    })
  const number = (limit: number) => {
    const sequencing = store.sequencing
    assert.ok(sequencing)
    return sequencing.transaction((trx) => numberCommittedEvents(trx, limit))
  }
  /** The numbered events, after `after`, as [id, name]. */
  const numbered = async (after: number) =>
    (
      await sql<{ id: string; data: string }>`select id, data from events where id > ${after} order by id`.execute(
        store.admin,
      )
    ).rows.map((row) => [Number(row.id), JSON.parse(row.data).name])
  /** `names` as numbered right after `start`, with consecutive ids: what `numbered(start)` must give. */
  const consecutiveAfter = (start: number, names: string[]) => names.map((name, index) => [start + index + 1, name])
  const newest = async () =>
    Number((await sql<{ id: string }>`select coalesce(max(id), 0) as id from events`.execute(store.admin)).rows[0]?.id)
  /**
   * A transaction that runs `first`, then waits, until `finish()`, to run `then` and commit. Resolves once `first`
   * has run.
   */
  const pausedTransaction = async (first: (trx: Writer) => Promise<void>, then: (trx: Writer) => Promise<void>) => {
    let paused!: () => void
    const hasPaused = new Promise<void>((resolve) => (paused = resolve))
    let resume!: () => void
    const mayResume = new Promise<void>((resolve) => (resume = resolve))
    const committed = store.admin.transaction().execute(async (trx) => {
      await first(trx)
      paused()
      await mayResume
      await then(trx)
    })
    await hasPaused
    return {
      finish: () => {
        resume()
        return committed
      },
    }
  }

  it('numbers a transaction with more events than the limit whole, before an older one that commits \
later', async () => {
    const start = await newest()
    // The older transaction takes its id first, and commits only after the younger one has been numbered.
    const older = await pausedTransaction(
      (trx) => append(trx, 'older'),
      async () => undefined,
    )
    await commitEvents('order', 'its pet', 'third')

    assert.deepEqual(await number(2), { count: 3, more: false })
    await older.finish()
    assert.deepEqual(await number(2), { count: 1, more: false })
    assert.deepEqual(await numbered(start), consecutiveAfter(start, ['order', 'its pet', 'third', 'older']))
  })

  it('numbers the transactions committed before it in commit order, not the order they began writing', async () => {
    const start = await newest()
    // As a category create does: its first write (the counter row) comes early, then it waits for pet writes in
    // progress, and appends its event after they have committed.
    const early = await pausedTransaction(
      async (trx) => void (await sql`select pg_current_xact_id()`.execute(trx)),
      (trx) => append(trx, 'category, after the pets'),
    )
    await commitEvents('first pet')
    await commitEvents('second pet')
    await early.finish()

    assert.deepEqual(await number(10), { count: 3, more: false })
    assert.deepEqual(
      await numbered(start),
      consecutiveAfter(start, ['first pet', 'second pet', 'category, after the pets']),
    )
  })

  it('keeps a transaction that committed later with its events together after one that committed earlier', async () => {
    const start = await newest()
    const later = await pausedTransaction(
      async (trx) => {
        await append(trx, 'later order')
        // Sent now, not with the COMMIT: its insertion comes before the other transaction's.
        await sql`select 1`.execute(trx)
      },
      (trx) => append(trx, 'later pet'),
    )
    await commitEvents('earlier order', 'earlier pet')
    await later.finish()

    assert.deepEqual(await number(10), { count: 4, more: false })
    assert.deepEqual(
      await numbered(start),
      consecutiveAfter(start, ['earlier order', 'earlier pet', 'later order', 'later pet']),
    )
  })

  it('numbers random interleavings whole, once each, in commit order, within the limit', async () => {
    const random = seededRandom(20261129)
    for (let round = 0; round < 40; round++) {
      const start = await newest()
      // Transactions of one to four events, their inserts interleaved, each under a transaction id that has
      // nothing to do with the order (as when a transaction begins writing long before it commits).
      const sizes = Array.from({ length: 1 + random.below(7) }, () => 1 + random.below(4))
      const pending = sizes.flatMap((size, transaction) => Array.from({ length: size }, () => transaction))
      const inserted: string[] = []
      const written = new Map<number, number>()
      const xacts = sizes.map(() => 1 + random.below(1_000_000))
      await store.admin.transaction().execute(async (trx) => {
        while (pending.length > 0) {
          const [transaction] = pending.splice(random.below(pending.length), 1) as [number]
          const name = `t${transaction}e${written.get(transaction) ?? 0}`
          written.set(transaction, (written.get(transaction) ?? 0) + 1)
          inserted.push(name)
          const data = JSON.stringify({ name })
          await sql`insert into event_inbox (xact, type, occurred_at, data)
            values (${xacts[transaction]}, 'pet.created', '2026-11-01T00:00:00.000Z', ${data})`.execute(trx)
        }
      })
      const transactionOf = (name: string) => Number(/^t(\d+)/.exec(name)?.[1])
      const lastInsert = (name: string) =>
        inserted.findLastIndex((other) => transactionOf(other) === transactionOf(name))
      const expected = [...inserted].sort(
        (a, b) => lastInsert(a) - lastInsert(b) || inserted.indexOf(a) - inserted.indexOf(b),
      )

      let numberedSoFar = 0
      for (;;) {
        const limit = 1 + random.below(6)
        const { count, more } = await number(limit)
        const batch = expected.slice(numberedSoFar, numberedSoFar + count)
        const transactions = new Set(batch.map(transactionOf))
        assert.ok(count <= limit || transactions.size === 1, `round ${round}: ${count} events over a limit of ${limit}`)
        for (const transaction of transactions)
          assert.equal(
            batch.filter((name) => transactionOf(name) === transaction).length,
            sizes[transaction],
            `round ${round}: transaction ${transaction} numbered whole`,
          )
        numberedSoFar += count
        assert.equal(more, numberedSoFar < inserted.length, `round ${round}: more`)
        if (!more) break
      }
      assert.deepEqual(await numbered(start), consecutiveAfter(start, expected), `round ${round}`)
    }
  })

  it('stops at the last whole transaction within the limit, and says more wait', async () => {
    const start = await newest()
    await commitEvents('first order', 'first pet')
    await commitEvents('second order', 'second pet')
    assert.deepEqual(await number(3), { count: 2, more: true })
    assert.deepEqual(await number(3), { count: 2, more: false })
    assert.deepEqual(await number(3), { count: 0, more: false })
    assert.deepEqual(
      await numbered(start),
      consecutiveAfter(start, ['first order', 'first pet', 'second order', 'second pet']),
    )
  })
})

describe('numbering a backlog on postgres', () => {
  let opened: Awaited<ReturnType<typeof openTestStore>>
  before(async () => {
    // The shortest time-out a request may have: numbering a backlog takes longer than that.
    opened = await openTestStore({ DATABASE_STATEMENT_TIMEOUT_MS: '100' })
    const client = new pg.Client({ connectionString: opened.url })
    await client.connect()
    try {
      await migrateToLatest(opened.store.migrations)
      // Written as by instances whose numbering was held up: 300,000 events in 150,001 transactions, two events
      // each but the first (so ten thousand would part one: 9,999 are numbered).
      await client.query(`insert into event_inbox (xact, type, occurred_at, data)
        select i / 2, 'pet.created', '2026-11-01T00:00:00.000Z', '{"name":"pet ' || i || '"}'
          from generate_series(1, 300000) as i`)
    } finally {
      await client.end()
    }
  })
  after(() => opened.close())

  it('is not cut off at the requests’ statement time-out: it numbers up to ten thousand at a time', async () => {
    const sequencing = opened.store.sequencing
    assert.ok(sequencing)
    assert.deepEqual(await sequencing.transaction((trx) => numberCommittedEvents(trx, 10_000)), {
      count: 9_999,
      more: true,
    })
  })
})
