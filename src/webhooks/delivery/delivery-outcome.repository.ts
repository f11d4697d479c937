// What became of the attempts of deliveries an instance holds by lease (delivery-claim.repository.ts): their
// starts, their outcomes, and leases given back. Each write is conditional on still holding the lease (token
// and attempt number), so an instance that lost its lease cannot overwrite what another recorded since.
import type { AttemptOutcome, Writer } from '../../db/database.js'

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

/** An attempt about to be sent, or given back: its delivery and number, and whether its start was recorded. */
export interface AttemptStart {
  deliveryId: number
  attempt: number
}

/** An attempt about to be sent, with the endpoint as its claim read it: where it goes, and its sealed secret. */
export interface ClaimedStart extends AttemptStart {
  endpointId: number
  url: string
  secret: string
}

/**
 * Records that attempts are about to be sent (each now counts); returns the deliveries whose lease still holds
 * and whose endpoint is still enabled, with the URL and secret the claim read: the only ones that may be sent.
 * A delivery held (claimed ahead) while its endpoint was disabled, deleted, moved to another URL or given a new
 * secret is not sent as the claim read it: given back, it waits (disabled), is purged (deleted), or is claimed
 * again as the endpoint is now.
 */
export async function recordStarts(
  trx: Writer,
  leaseToken: string,
  starts: readonly ClaimedStart[],
): Promise<number[]> {
  const started: number[] = []
  for (const batch of chunks(starts)) {
    const endpoints = new Map(batch.map((start) => [start.endpointId, start]))
    const rows = await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('lease_token', '=', leaseToken)
      .where(({ eb, refTuple, tuple }) =>
        eb(
          refTuple('id', 'attempts'),
          'in',
          batch.map((start) => tuple(start.deliveryId, start.attempt - 1)),
        ),
      )
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('webhook_endpoints as endpoint')
            .select('endpoint.id')
            .whereRef('endpoint.id', '=', 'webhook_deliveries.endpoint_id')
            .where('endpoint.status', '=', 'enabled')
            .where(({ eb, refTuple, tuple }) =>
              eb(
                refTuple('endpoint.id', 'endpoint.url', 'endpoint.secret'),
                'in',
                [...endpoints.values()].map((start) => tuple(start.endpointId, start.url, start.secret)),
              ),
            ),
        ),
      )
      .returning('id')
      .execute()
    started.push(...rows.map((row) => Number(row.id)))
  }
  return started
}

/**
 * Gives back leases (shutdown, or held too long to start): due again at once. An attempt abandoned unfinished
 * is not counted: its start is taken back.
 */
export async function releaseDeliveries(
  trx: Writer,
  leaseToken: string,
  released: readonly (AttemptStart & { started: boolean })[],
  now: number,
): Promise<void> {
  for (const { deliveryId, attempt, started } of released) {
    await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        attempts: started ? eb('attempts', '-', 1) : eb.ref('attempts'),
        due_at: now,
        lease_token: null,
      }))
      .where('id', '=', deliveryId)
      .where('lease_token', '=', leaseToken)
      .where('attempts', '=', started ? attempt : attempt - 1)
      .execute()
  }
}
