// Rows of webhook_deliveries and webhook_attempts: the work queue of every instance, and its log. A delivery is
// pending until an attempt succeeds or the retries run out. An instance takes due deliveries by a lease: it sets
// due_at to the lease's end and lease_token to its own token, in one transaction; whatever it then records is
// conditional on still holding that lease (token and attempt number), so an instance that lost its lease (it
// stalled past the end) cannot overwrite what another recorded since. An instance that dies simply never
// records anything: at the lease's end the delivery is due again, and any instance retries it.
import { PostgresAdapter, sql, type Selectable } from 'kysely'
import type {
  AttemptOutcome,
  DeliveryStatus,
  Reader,
  WebhookAttemptTable,
  WebhookDeliveryTable,
  Writer,
} from '../db/database.js'
import { newestReadableEventIdQuery, type EventRow } from '../events/event.repository.js'

export type DeliveryRow = Selectable<WebhookDeliveryTable>
export type AttemptRow = Selectable<WebhookAttemptTable>

const PENDING = sql.lit<DeliveryStatus>('pending')

export interface ClaimQuery {
  /** Epoch milliseconds. */
  now: number
  leaseMs: number
  leaseToken: string
  /** Deliveries to take at most, in all and per endpoint (less what this instance already has in progress there). */
  total: number
  perEndpoint: number
  inProgress: ReadonlyMap<number, number>
}

export interface ClaimedDelivery {
  id: number
  endpointId: number
  eventId: number
  /** The number of the attempt now begun (1 for the first). */
  attempt: number
  url: string
  /** Sealed secrets, as stored. */
  secret: string
  previousSecret: string | null
  previousSecretExpiresAt: string | null
  /** Undefined when the event is no longer kept. */
  event: EventRow | undefined
}

interface DueRow {
  id: number
  endpoint_id: number
  event_id: number
  /** Attempts begun before this claim. */
  attempts: number
  /** Set when a claim was never recorded: its instance died (or stalled) holding the lease, maybe after sending. */
  lease_token: string | null
  due_at: number
}

/** SQLite has one writer at a time, so the claim's reads see what no one else can change: one query per endpoint. */
async function dueOnSqlite(trx: Writer, query: ClaimQuery): Promise<DueRow[]> {
  const endpoints = await trx.selectFrom('webhook_endpoints').select('id').where('status', '=', 'enabled').execute()
  const due: DueRow[] = []
  for (const { id } of endpoints) {
    const free = Math.min(query.total, query.perEndpoint - (query.inProgress.get(Number(id)) ?? 0))
    if (free <= 0) continue
    due.push(
      ...((await trx
        .selectFrom('webhook_deliveries')
        .select(['id', 'endpoint_id', 'event_id', 'attempts', 'lease_token', 'due_at'])
        .where('endpoint_id', '=', id)
        .where('status', '=', PENDING)
        .where('due_at', '<=', query.now)
        .orderBy('due_at')
        .orderBy('id')
        .limit(free)
        .execute()) as DueRow[]),
    )
  }
  return due.sort((a, b) => a.due_at - b.due_at || a.id - b.id).slice(0, query.total)
}

/**
 * PostgreSQL: one statement. Per enabled endpoint its oldest due deliveries, as many as it has free places,
 * locked with SKIP LOCKED so that instances claiming at once take different rows instead of waiting for each other.
 */
async function dueOnPostgres(trx: Writer, query: ClaimQuery): Promise<DueRow[]> {
  const inProgress = JSON.stringify(Object.fromEntries(query.inProgress))
  const { rows } = await sql<DueRow>`
    select d.id, d.endpoint_id, d.event_id, d.attempts, d.lease_token, d.due_at
    from webhook_endpoints e
    cross join lateral (
      select x.id, x.endpoint_id, x.event_id, x.attempts, x.lease_token, x.due_at
      from webhook_deliveries x
      where x.endpoint_id = e.id and x.status = ${PENDING} and x.due_at <= ${query.now}
      order by x.due_at, x.id
      limit greatest(0, ${query.perEndpoint} - coalesce((${inProgress}::jsonb ->> e.id::text)::int, 0))
      for update of x skip locked
    ) d
    where e.status = 'enabled'
    order by d.due_at, d.id
    limit ${query.total}`.execute(trx)
  return rows
}

/**
 * Takes due deliveries of enabled endpoints for an attempt each: at most `total`, and per endpoint at most its
 * free places, oldest due first. An attempt left unrecorded by a dead holder is logged as `interrupted` here.
 */
export async function claimDueDeliveries(trx: Writer, query: ClaimQuery): Promise<ClaimedDelivery[]> {
  const due =
    trx.getExecutor().adapter instanceof PostgresAdapter
      ? await dueOnPostgres(trx, query)
      : await dueOnSqlite(trx, query)
  if (due.length === 0) return []
  const ids = due.map((row) => row.id)
  await trx
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      due_at: query.now + query.leaseMs,
      lease_token: query.leaseToken,
    }))
    .where('id', 'in', ids)
    .execute()
  const interrupted = due.filter((row) => row.lease_token !== null)
  if (interrupted.length > 0) {
    await trx
      .insertInto('webhook_attempts')
      .values(
        interrupted.map((row) => {
          // The lease ended at due_at; it began a lease's length before.
          const startedAt = Number(row.due_at) - query.leaseMs
          return {
            delivery_id: row.id,
            attempt: Number(row.attempts),
            started_at: new Date(startedAt).toISOString(),
            duration_ms: Math.max(0, query.now - startedAt),
            outcome: 'interrupted' as const,
            response_status: null,
            response_body: null,
            error:
              'the instance that had taken it stopped before recording an outcome (its lease ran out); the request may or may not have been sent',
          }
        }),
      )
      .onConflict((conflict) => conflict.columns(['delivery_id', 'attempt']).doNothing())
      .execute()
  }
  const endpointIds = [...new Set(due.map((row) => Number(row.endpoint_id)))]
  const eventIds = [...new Set(due.map((row) => Number(row.event_id)))]
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'secret', 'previous_secret', 'previous_secret_expires_at'])
    .where('id', 'in', endpointIds)
    .execute()
  const events = await trx.selectFrom('events').selectAll().where('id', 'in', eventIds).execute()
  const endpointById = new Map(endpoints.map((endpoint) => [Number(endpoint.id), endpoint]))
  const eventById = new Map(events.map((event) => [Number(event.id), event]))
  return due.flatMap((row) => {
    const endpoint = endpointById.get(Number(row.endpoint_id))
    if (!endpoint) return []
    return [
      {
        id: Number(row.id),
        endpointId: Number(row.endpoint_id),
        eventId: Number(row.event_id),
        attempt: Number(row.attempts) + 1,
        url: endpoint.url,
        secret: endpoint.secret,
        previousSecret: endpoint.previous_secret,
        previousSecretExpiresAt: endpoint.previous_secret_expires_at,
        event: eventById.get(Number(row.event_id)),
      },
    ]
  })
}

/** What became of one attempt, and what the delivery does next. */
export interface AttemptRecord {
  deliveryId: number
  attempt: number
  startedAt: string
  durationMs: number
  outcome: AttemptOutcome
  responseStatus: number | null
  error: string | null
  responseBody: string | null
  /** succeeded or failed (a failure finished at `finishedAt`), or pending with the next attempt due at `dueAt`. */
  next: { status: 'succeeded' } | { status: 'failed'; finishedAt: string } | { status: 'pending'; dueAt: number }
}

/** Rows per statement when many are written at once (well within every dialect's limit on parameters). */
const ROWS_PER_STATEMENT = 400

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = []
  for (let start = 0; start < items.length; start += ROWS_PER_STATEMENT)
    result.push(items.slice(start, start + ROWS_PER_STATEMENT))
  return result
}

/**
 * Records attempts made under `leaseToken`; those whose lease was lost meanwhile (another claim since: another
 * token, or another attempt number) are dropped. Returns the ids recorded. Successes, the common case, are
 * written a batch per statement; the others one by one, each with its own next due time.
 */
export async function recordAttempts(
  trx: Writer,
  leaseToken: string,
  records: readonly AttemptRecord[],
  now: string,
): Promise<number[]> {
  const recorded: number[] = []
  const succeeded = records.filter((record) => record.next.status === 'succeeded')
  for (const batch of chunks(succeeded)) {
    const rows = await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'succeeded', due_at: null, lease_token: null, finished_at: now })
      .where('lease_token', '=', leaseToken)
      .where(({ eb, refTuple, tuple }) =>
        eb(
          refTuple('id', 'attempts'),
          'in',
          batch.map((record) => tuple(record.deliveryId, record.attempt)),
        ),
      )
      .returning('id')
      .execute()
    recorded.push(...rows.map((row) => Number(row.id)))
  }
  for (const record of records.filter((candidate) => candidate.next.status !== 'succeeded')) {
    const { next } = record
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set(
        next.status === 'pending'
          ? { due_at: next.dueAt, lease_token: null }
          : {
              status: next.status,
              due_at: null,
              lease_token: null,
              finished_at: next.status === 'failed' ? next.finishedAt : now,
            },
      )
      .where('id', '=', record.deliveryId)
      .where('lease_token', '=', leaseToken)
      .where('attempts', '=', record.attempt)
      .executeTakeFirst()
    if (updated.numUpdatedRows > 0n) recorded.push(record.deliveryId)
  }
  const kept = new Set(recorded)
  for (const batch of chunks(records.filter((record) => kept.has(record.deliveryId)))) {
    await trx
      .insertInto('webhook_attempts')
      .values(
        batch.map((record) => ({
          delivery_id: record.deliveryId,
          attempt: record.attempt,
          started_at: record.startedAt,
          duration_ms: record.durationMs,
          outcome: record.outcome,
          response_status: record.responseStatus,
          error: record.error,
          response_body: record.responseBody,
        })),
      )
      .onConflict((conflict) => conflict.columns(['delivery_id', 'attempt']).doNothing())
      .execute()
  }
  return recorded
}

/** Gives back leases of attempts abandoned unfinished (shutdown): due again at once, the attempt not counted. */
export async function releaseDeliveries(
  trx: Writer,
  leaseToken: string,
  released: readonly { deliveryId: number; attempt: number }[],
  now: number,
): Promise<void> {
  for (const { deliveryId, attempt } of released) {
    await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({ attempts: eb('attempts', '-', 1), due_at: now, lease_token: null }))
      .where('id', '=', deliveryId)
      .where('lease_token', '=', leaseToken)
      .where('attempts', '=', attempt)
      .execute()
  }
}

export interface DueState {
  /** Whether any endpoint is enabled (only then can commits need deliveries). */
  endpointsEnabled: boolean
  /** Whether readable events wait for the fan-out to create their deliveries. */
  eventsWaiting: boolean
  /** Enabled endpoints with no pending delivery due now (none, or all leased or scheduled later): they could take more. */
  endpointsWithoutDueWork: number
  /** When the earliest pending delivery of an enabled endpoint is due (or its lease ends); undefined: none. */
  earliestDue: number | undefined
  /** The same, leaving out the endpoints passed as full: when a claim could next take something. */
  earliestClaimable: number | undefined
}

/**
 * What the deliverer must know to decide when to look again. Per endpoint, one probe of its index for the
 * smallest due time: a backlog costs nothing here. Endpoints in `full` (the deliverer holds all it may of
 * theirs) count for the earliest due time, not for the earliest claimable one: a claim could take nothing of
 * theirs. And whether the fan-out has events to turn into deliveries, and endpoints that could take them.
 */
export async function dueState(db: Reader, now: number, full: readonly number[] = []): Promise<DueState> {
  const row = await db
    .selectFrom('webhook_endpoints as endpoint')
    .where('endpoint.status', '=', 'enabled')
    .select((eb) => [
      eb.fn.min('endpoint.receives_after').as('first'),
      eb.selectFrom('webhook_fan_out').select('position').as('position'),
      newestReadableEventIdQuery(db).as('newest'),
    ])
    .select((eb) => {
      const due = eb
        .selectFrom('webhook_deliveries as delivery')
        .select((inner) => inner.fn.min('delivery.due_at').as('due'))
        .whereRef('delivery.endpoint_id', '=', 'endpoint.id')
        .where('delivery.status', '=', PENDING)
      return [
        eb.fn.countAll().as('enabled'),
        eb.fn.min(due).as('due'),
        eb.fn.count(eb.case().when(due, 'is', null).then(1).when(due, '>', now).then(1).end()).as('without_due_work'),
        full.length === 0
          ? eb.val(null).as('claimable')
          : eb.fn
              .min(
                eb
                  .case()
                  .when('endpoint.id', 'not in', [...full])
                  .then(due)
                  .end(),
              )
              .as('claimable'),
      ]
    })
    .executeTakeFirst()
  const time = (value: unknown) => (value === null || value === undefined ? undefined : Number(value))
  const earliestDue = time(row?.due)
  const newest = time(row?.newest)
  return {
    endpointsEnabled: Number(row?.enabled ?? 0) > 0,
    endpointsWithoutDueWork: Number(row?.without_due_work ?? 0),
    eventsWaiting:
      newest !== undefined &&
      newest > Math.max(Number(row?.position ?? 0), time(row?.first) ?? Number.POSITIVE_INFINITY),
    earliestDue,
    earliestClaimable: full.length === 0 ? earliestDue : time(row?.claimable),
  }
}

export interface DeliveryPageQuery {
  endpointId: number
  /** Only deliveries with a smaller id (newest first): the keyset cursor. */
  beforeId: number | undefined
  status: DeliveryStatus | undefined
  limit: number
}

export interface DeliveryWithAttempts {
  delivery: DeliveryRow
  attempts: AttemptRow[]
}

/** An endpoint's deliveries, newest first, each with its attempts in order. */
export async function listDeliveries(db: Reader, query: DeliveryPageQuery): Promise<DeliveryWithAttempts[]> {
  let select = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', query.endpointId)
    .orderBy('id', 'desc')
    .limit(query.limit)
  if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId)
  if (query.status !== undefined) select = select.where('status', '=', query.status)
  const deliveries = await select.execute()
  return withAttempts(db, deliveries)
}

async function withAttempts(db: Reader, deliveries: DeliveryRow[]): Promise<DeliveryWithAttempts[]> {
  if (deliveries.length === 0) return []
  const attempts = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where(
      'delivery_id',
      'in',
      deliveries.map((delivery) => delivery.id),
    )
    .orderBy('delivery_id')
    .orderBy('attempt')
    .execute()
  return deliveries.map((delivery) => ({
    delivery,
    attempts: attempts.filter((attempt) => Number(attempt.delivery_id) === Number(delivery.id)),
  }))
}

export async function findDelivery(
  db: Reader,
  endpointId: number,
  id: number,
): Promise<DeliveryWithAttempts | undefined> {
  const delivery = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', id)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst()
  return delivery && (await withAttempts(db, [delivery]))[0]
}

/**
 * Makes a delivery due at once, finished or not (a finished one is sent again, as the same webhook-id); undefined
 * when an attempt of it is in progress, or there is no such delivery of this endpoint.
 */
export async function scheduleDeliveryNow(
  trx: Writer,
  endpointId: number,
  id: number,
  now: number,
): Promise<DeliveryRow | undefined> {
  return trx
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', due_at: now, finished_at: null })
    .where('id', '=', id)
    .where('endpoint_id', '=', endpointId)
    .where('lease_token', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

/**
 * Deletes a bounded batch of deliveries finished before `cutoff`, and of deliveries whose endpoint was deleted
 * (of any age: nothing will attempt or show them again), with their attempts. On PostgreSQL the batch is locked
 * first, skipping rows another transaction holds (an attempt being recorded for a deleted endpoint): so the
 * purge never waits on the worker, nor the worker on the purge while holding what the purge needs.
 */
export async function purgeDeliveries(trx: Writer, cutoff: string, limit: number): Promise<number> {
  const onPostgres = trx.getExecutor().adapter instanceof PostgresAdapter
  let finished = trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('finished_at', 'is not', null)
    .where('finished_at', '<', cutoff)
    .limit(limit)
  let orphans = trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', 'not in', (eb) => eb.selectFrom('webhook_endpoints').select('id'))
    .limit(limit)
  if (onPostgres) {
    finished = finished.forUpdate().skipLocked()
    orphans = orphans.forUpdate().skipLocked()
  }
  const ids = [...new Set([...(await finished.execute()), ...(await orphans.execute())].map((row) => row.id))]
  if (ids.length === 0) return 0
  await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', ids).execute()
  const deleted = await trx.deleteFrom('webhook_deliveries').where('id', 'in', ids).executeTakeFirst()
  return Number(deleted.numDeletedRows)
}

/** Per endpoint, how many of its deliveries are pending and how many failed. */
export async function countOpenDeliveries(db: Reader): Promise<Map<number, { pending: number; failed: number }>> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', 'status', (eb) => eb.fn.countAll<number>().as('count')])
    .where('status', 'in', ['pending', 'failed'])
    .groupBy(['endpoint_id', 'status'])
    .execute()
  const counts = new Map<number, { pending: number; failed: number }>()
  for (const row of rows) {
    const count = counts.get(Number(row.endpoint_id)) ?? { pending: 0, failed: 0 }
    if (row.status === 'pending') count.pending = Number(row.count)
    else count.failed = Number(row.count)
    counts.set(Number(row.endpoint_id), count)
  }
  return counts
}
