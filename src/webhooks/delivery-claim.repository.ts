// Taking due deliveries by lease (what became of their attempts is delivery-outcome.repository.ts). An instance
// takes deliveries by a lease: it sets due_at to the lease's end and lease_token to its own token, in one transaction;
// whatever it
// then records is conditional on still holding that lease (token and attempt number), so an instance that lost
// its lease (it stalled past the end) cannot overwrite what another recorded since. An attempt counts (against
// the retry schedule, and in the log) from the moment its start is recorded, which the instance does before it
// sends the request: a delivery taken but never started goes back as it was. An instance that dies simply
// never records anything more: at the lease's end the delivery is due again, and any instance retries it.
import { PostgresAdapter, sql } from 'kysely'
import type { DeliveryStatus, Writer } from '../db/database.js'
import type { EventRow } from '../events/event.repository.js'

const PENDING = sql.lit<DeliveryStatus>('pending')

export interface ClaimQuery {
  /** Epoch milliseconds. */
  now: number
  leaseMs: number
  leaseToken: string
  /** Deliveries to take at most, in all and per endpoint (less what is not free there). */
  total: number
  perEndpoint: number
  /** Per endpoint, how many of its `perEndpoint` are not free: held by this instance, or withheld (throttled). */
  notFree: ReadonlyMap<number, number>
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
  /** Attempts begun (their start recorded) before this claim. */
  attempts: number
  /** Set when a claim was never recorded: its instance died (or stalled) holding the lease. */
  lease_token: string | null
  due_at: number
}

/** SQLite has one writer at a time, so the claim's reads see what no one else can change: one query per endpoint. */
async function dueOnSqlite(trx: Writer, query: ClaimQuery): Promise<DueRow[]> {
  const endpoints = await trx.selectFrom('webhook_endpoints').select('id').where('status', '=', 'enabled').execute()
  const due: DueRow[] = []
  for (const { id } of endpoints) {
    const free = Math.min(query.total, query.perEndpoint - (query.notFree.get(Number(id)) ?? 0))
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
  const notFree = JSON.stringify(Object.fromEntries(query.notFree))
  const { rows } = await sql<DueRow>`
    select d.id, d.endpoint_id, d.event_id, d.attempts, d.lease_token, d.due_at
    from webhook_endpoints e
    cross join lateral (
      select x.id, x.endpoint_id, x.event_id, x.attempts, x.lease_token, x.due_at
      from webhook_deliveries x
      where x.endpoint_id = e.id and x.status = ${PENDING} and x.due_at <= ${query.now}
      order by x.due_at, x.id
      limit greatest(0, ${query.perEndpoint} - coalesce((${notFree}::jsonb ->> e.id::text)::int, 0))
      for update of x skip locked
    ) d
    where e.status = 'enabled'
    order by d.due_at, d.id
    limit ${query.total}`.execute(trx)
  return rows
}

/**
 * Takes due deliveries of enabled endpoints for an attempt each: at most `total`, and per endpoint at most its
 * free places, oldest due first. A started attempt left unrecorded by a dead holder is logged as `interrupted`
 * here; a delivery it held without starting comes back as it was.
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
    .set({ due_at: query.now + query.leaseMs, lease_token: query.leaseToken })
    .where('id', 'in', ids)
    .execute()
  await logInterrupted(trx, due, query)
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

/**
 * Of the deliveries just taken from a dead (or stalled) holder, those whose last attempt was started but never
 * recorded: logged as `interrupted`, since the request may or may not have reached the receiver.
 */
async function logInterrupted(trx: Writer, due: readonly DueRow[], query: ClaimQuery): Promise<void> {
  const orphaned = due.filter((row) => row.lease_token !== null && Number(row.attempts) > 0)
  if (orphaned.length === 0) return
  const logged = await trx
    .selectFrom('webhook_attempts')
    .select('delivery_id')
    .where(({ eb, refTuple, tuple }) =>
      eb(
        refTuple('delivery_id', 'attempt'),
        'in',
        orphaned.map((row) => tuple(row.id, Number(row.attempts))),
      ),
    )
    .execute()
  const known = new Set(logged.map((row) => Number(row.delivery_id)))
  const interrupted = orphaned.filter((row) => !known.has(Number(row.id)))
  if (interrupted.length === 0) return
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
            'the instance that had taken it stopped before recording an outcome (its lease ran out); the request ' +
            'may or may not have been sent',
        }
      }),
    )
    .onConflict((conflict) => conflict.columns(['delivery_id', 'attempt']).doNothing())
    .execute()
}
