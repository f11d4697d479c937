// The deliverer's batch writer when the database refuses a write. A record the database refuses for its values
// (here a duration that is not a number: PostgreSQL cannot read NaN as an integer, SQLite stores it as NULL in a
// NOT NULL column) must not hold back the others: they are written, it is reported once and dropped, and its
// delivery is due again once its lease runs out. A database that is unavailable (PostgreSQL refusing connections,
// ALLOW_CONNECTIONS false; SQLite's write lock held by another connection past the busy time-out) keeps every
// record for a later flush. On PostgreSQL in a database of its own, so that refusing connections leaves other
// test files alone. And on PostgreSQL, whose bookkeeping commits without waiting for the disk, the start of an
// attempt is the one write that waits for it: it must survive a crash of the database server once its request
// may have left.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import Sqlite from 'better-sqlite3'
import { sql } from 'kysely'
import { loadConfig } from '../../../src/config.js'
import type { DataAccess } from '../../../src/db/database.js'
import { rootCause } from '../../../src/db/database-errors.js'
import { migrateToLatest } from '../../../src/db/migrate.js'
import { openStore, type Store } from '../../../src/db/store.js'
import { DeliveryBatchWriter } from '../../../src/webhooks/delivery/delivery-batch-writer.js'
import { claimDueDeliveries } from '../../../src/webhooks/delivery/delivery-claim.repository.js'
import type { AttemptRecord } from '../../../src/webhooks/delivery/delivery-outcome.repository.js'
import { createTestDatabase, runOnPostgresServer, TEST_STORE } from '../../helpers/store.js'
import { insertEndpointRow } from '../../helpers/webhooks.js'

const TOKEN = 'lease-of-this-instance'
const LEASE_MS = 60_000
/** When the leases of the deliveries made here end (epoch milliseconds). */
const LEASE_ENDS = 1_900_000_000_000
const STARTED_AT = '2030-03-17T17:46:39.000Z'
const FINISHED_AT = '2030-03-17T17:46:40.000Z'
const SECRET_BODY = 'the receiver answered this, which no log may show'

/** A database of its own, and how to make it unavailable for a while. */
interface OwnDatabase {
  url: string
  /** Makes the database unavailable to `store`; resolves to what makes it available again. */
  unavailable(): Promise<() => Promise<void>>
  drop(): Promise<void>
}

async function ownDatabase(): Promise<OwnDatabase> {
  if (TEST_STORE === 'sqlite') {
    const database = await createTestDatabase()
    return {
      ...database,
      async unavailable() {
        // Without a busy wait, which would stop this process's event loop, and with it the commit of a batch the
        // store may have open.
        const other = new Sqlite(database.url.slice('file:'.length), { timeout: 0 })
        for (;;) {
          try {
            other.exec('begin immediate')
            break
          } catch (error) {
            if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error
            await new Promise((resolve) => setTimeout(resolve, 5))
          }
        }
        return async () => {
          other.exec('rollback')
          other.close()
        }
      },
    }
  }
  const serverUrl = process.env.TEST_DATABASE_URL ?? ''
  assert.ok(serverUrl, 'TEST_DATABASE_URL is set')
  const name = `petstore_batch_writer_${randomBytes(6).toString('hex')}`
  const admin = (text: string) => runOnPostgresServer(text, serverUrl)
  await admin(`create database ${name}`)
  return {
    url: Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString(),
    async unavailable() {
      await admin(`alter database ${name} allow_connections false`)
      // Waiting for each backend to end: one still ending could take the flush's query and drop the connection
      // under it, which fails without PostgreSQL's refusal.
      await admin(`select pg_terminate_backend(pid, 5000) from pg_stat_activity where datname = '${name}'`)
      return () => admin(`alter database ${name} allow_connections true`)
    },
    drop: () => admin(`drop database if exists ${name} with (force)`),
  }
}

describe(`the webhook batch writer, when the database refuses a write, on ${TEST_STORE}`, () => {
  let database: OwnDatabase
  let store: Store
  let endpointId: number

  before(async () => {
    database = await ownDatabase()
    store = openStore(loadConfig({ DATABASE_URL: database.url }))
    await migrateToLatest(store.admin)
    endpointId = await insertEndpointRow(store.admin, { created_at: STARTED_AT })
  })
  after(async () => {
    await store.close()
    await database.drop()
  })

  /** A delivery this instance holds by lease, `attempts` of its attempts started (the first, by default): its id. */
  let events = 0
  const leased = async (attempts = 1) =>
    Number(
      (
        await store.admin
          .insertInto('webhook_deliveries')
          .values({
            endpoint_id: endpointId,
            event_id: ++events,
            status: 'pending',
            attempts,
            due_at: LEASE_ENDS,
            lease_token: TOKEN,
            created_at: STARTED_AT,
            finished_at: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    )

  const record = (deliveryId: number, fields: Partial<AttemptRecord> = {}): AttemptRecord => ({
    deliveryId,
    attempt: 1,
    startedAt: STARTED_AT,
    durationMs: 25,
    outcome: 'succeeded',
    responseStatus: 200,
    error: null,
    responseBody: SECRET_BODY,
    next: { status: 'succeeded' },
    ...fields,
  })

  interface Reported {
    what: string
    message: string
  }
  const writer = (reported: Reported[], finished: string[]) =>
    new DeliveryBatchWriter({
      data: store.bookkeeping,
      leaseToken: TOKEN,
      // Written when the test flushes; no flush of the writer's own comes in the meantime.
      batchIntervalMs: 600_000,
      retryMs: 600_000,
      finished: (status) => finished.push(status),
      onError: (error, what) =>
        reported.push({ what, message: error instanceof Error ? error.message : String(error) }),
    })

  const delivery = async (id: number) => {
    const row = await store.read
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'due_at', 'lease_token', 'finished_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    return { ...row, attempts: Number(row.attempts), due_at: row.due_at === null ? null : Number(row.due_at) }
  }
  const attempts = async (ids: number[]) =>
    (
      await store.read
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('delivery_id', 'in', ids)
        .orderBy('delivery_id')
        .execute()
    ).map((row) => ({ ...row, delivery_id: Number(row.delivery_id), attempt: Number(row.attempt) }))
  const logged = (id: number, fields: Record<string, unknown> = {}) => ({
    delivery_id: id,
    attempt: 1,
    started_at: STARTED_AT,
    duration_ms: 25,
    outcome: 'succeeded',
    response_status: 200,
    error: null,
    response_body: SECRET_BODY,
    ...fields,
  })

  it('writes every record the database takes, reports the one it refuses once, drops it, and goes on', async () => {
    const [succeeded, retried, poisoned, failed, released, later] = [
      await leased(),
      await leased(),
      await leased(),
      await leased(),
      await leased(),
      await leased(),
    ]
    const reported: Reported[] = []
    const finished: string[] = []
    const batch = writer(reported, finished)
    batch.record(record(succeeded))
    batch.record(
      record(retried, {
        outcome: 'unexpected_status',
        responseStatus: 503,
        next: { status: 'pending', dueAt: LEASE_ENDS + 5_000 },
      }),
    )
    batch.record(record(poisoned, { durationMs: Number.NaN }))
    batch.record(
      record(failed, {
        outcome: 'unexpected_status',
        responseStatus: 410,
        next: { status: 'failed', finishedAt: FINISHED_AT },
      }),
    )
    batch.release({ deliveryId: released, attempt: 1 }, true)
    const flushedFrom = Date.now()
    await batch.flush()
    const flushedUntil = Date.now()

    const refusal =
      TEST_STORE === 'sqlite'
        ? 'NOT NULL constraint failed: webhook_attempts.duration_ms (SQLITE_CONSTRAINT_NOTNULL)'
        : 'invalid input syntax for type integer: "NaN" (22P02)'
    const poisonedReport = {
      what:
        `the database refused the record of webhook delivery ${poisoned}, attempt 1: dropped; the delivery is ` +
        'due again once its lease runs out',
      message: refusal,
    }
    assert.deepEqual(reported, [poisonedReport])
    assert.deepEqual(finished, ['succeeded', 'failed'])

    const succeededRow = await delivery(succeeded)
    const finishedAt = Date.parse(succeededRow.finished_at ?? '')
    assert.ok(finishedAt >= flushedFrom - 1 && finishedAt <= flushedUntil + 1, `${succeededRow.finished_at}`)
    assert.deepEqual(succeededRow, {
      status: 'succeeded',
      attempts: 1,
      due_at: null,
      lease_token: null,
      finished_at: succeededRow.finished_at,
    })
    assert.deepEqual(await delivery(retried), {
      status: 'pending',
      attempts: 1,
      due_at: LEASE_ENDS + 5_000,
      lease_token: null,
      finished_at: null,
    })
    assert.deepEqual(await delivery(failed), {
      status: 'failed',
      attempts: 1,
      due_at: null,
      lease_token: null,
      finished_at: FINISHED_AT,
    })
    // Given back, its started attempt not counted: due at once.
    const releasedRow = await delivery(released)
    assert.ok(releasedRow.due_at !== null && releasedRow.due_at >= flushedFrom && releasedRow.due_at <= flushedUntil)
    assert.deepEqual(releasedRow, {
      status: 'pending',
      attempts: 0,
      due_at: releasedRow.due_at,
      lease_token: null,
      finished_at: null,
    })
    // The refused one is left as it was: held under the lease until it runs out.
    assert.deepEqual(await delivery(poisoned), {
      status: 'pending',
      attempts: 1,
      due_at: LEASE_ENDS,
      lease_token: TOKEN,
      finished_at: null,
    })
    assert.deepEqual(await attempts([succeeded, retried, poisoned, failed, released]), [
      logged(succeeded),
      logged(retried, { outcome: 'unexpected_status', response_status: 503 }),
      logged(failed, { outcome: 'unexpected_status', response_status: 410 }),
    ])

    // The next flush is not held back, and the refused record is not written again.
    batch.record(record(later))
    await batch.flush()
    assert.deepEqual(reported, [poisonedReport])
    assert.deepEqual(finished, ['succeeded', 'failed', 'succeeded'])
    assert.equal((await delivery(later)).status, 'succeeded')
    assert.deepEqual(await attempts([later, poisoned]), [logged(later)])

    // Once the lease runs out, a claim takes the delivery again, its attempt logged as interrupted: at least once.
    const claimed = await store.bookkeeping.transaction((trx) =>
      claimDueDeliveries(trx, {
        now: LEASE_ENDS + 1,
        total: 100,
        perEndpoint: 100,
        notFree: new Map(),
        leaseMs: LEASE_MS,
        leaseToken: 'lease-of-another-instance',
      }),
    )
    assert.deepEqual(
      claimed.filter((taken) => taken.id === poisoned).map((taken) => taken.attempt),
      [2],
    )
    const [interrupted] = await attempts([poisoned])
    assert.deepEqual(
      [interrupted?.delivery_id, interrupted?.attempt, interrupted?.outcome],
      [poisoned, 1, 'interrupted'],
    )
  })

  it('keeps every record while the database is unavailable, and writes them once it is back', async () => {
    const [first, second] = [await leased(), await leased()]
    const reported: (Reported & { code: unknown })[] = []
    const finished: string[] = []
    const batch = new DeliveryBatchWriter({
      data: store.bookkeeping,
      leaseToken: TOKEN,
      batchIntervalMs: 600_000,
      retryMs: 600_000,
      finished: (status) => finished.push(status),
      onError: (error, what) => reported.push({ what, message: rootCause(error).message, code: rootCause(error).code }),
    })
    batch.record(record(first))
    batch.record(record(second, { next: { status: 'pending', dueAt: LEASE_ENDS + 5_000 } }))

    const available = await database.unavailable()
    try {
      await batch.flush()
    } finally {
      await available()
    }
    assert.deepEqual(
      reported.map(({ what, code }) => ({ what, code })),
      [{ what: 'could not record webhook delivery attempts', code: TEST_STORE === 'sqlite' ? 'SQLITE_BUSY' : '55000' }],
    )
    assert.deepEqual(finished, [])
    assert.deepEqual(await attempts([first, second]), [])
    assert.equal((await delivery(first)).lease_token, TOKEN)

    await batch.flush()
    assert.equal(reported.length, 1)
    assert.deepEqual(finished, ['succeeded'])
    assert.deepEqual(await attempts([first, second]), [logged(first), logged(second)])
    assert.deepEqual(await delivery(second), {
      status: 'pending',
      attempts: 1,
      due_at: LEASE_ENDS + 5_000,
      lease_token: null,
      finished_at: null,
    })
  })

  it(
    'writes the start of an attempt durably before it is sent; outcomes commit without waiting for the disk',
    { skip: TEST_STORE === 'sqlite' ? "PostgreSQL's synchronous_commit (every SQLite commit is durable)" : false },
    async () => {
      // Lost in a crash of the database server after its request was sent, a start would leave the delivery to be
      // claimed again as never attempted: sent twice, logged once.
      const unstarted = await leased(0)
      /** synchronous_commit at the end of each transaction of the writer, in order. */
      const commits: string[] = []
      const watched: DataAccess = {
        read: store.bookkeeping.read,
        transaction: (work) =>
          store.bookkeeping.transaction(async (trx) => {
            const result = await work(trx)
            const setting = await sql<{ value: string }>`select current_setting('synchronous_commit') as value`.execute(
              trx,
            )
            commits.push(setting.rows[0]?.value ?? '')
            return result
          }),
      }
      const finished: string[] = []
      const batch = new DeliveryBatchWriter({
        data: watched,
        leaseToken: TOKEN,
        batchIntervalMs: 600_000,
        retryMs: 600_000,
        finished: (status) => finished.push(status),
        onError: (error) => assert.fail(String(error)),
      })

      assert.equal(
        await batch.started({
          deliveryId: unstarted,
          attempt: 1,
          endpointId,
          url: 'https://receiver.example/hooks',
          secret: 'sealed',
        }),
        true,
      )
      assert.deepEqual(commits, ['on'])
      assert.equal((await delivery(unstarted)).attempts, 1)

      batch.record(record(unstarted))
      await batch.flush()
      assert.deepEqual(commits, ['on', 'off'])
      assert.deepEqual(finished, ['succeeded'])
      assert.equal((await delivery(unstarted)).status, 'succeeded')
      assert.deepEqual(await attempts([unstarted]), [logged(unstarted)])
    },
  )
})
