// Taking due deliveries by lease (what became of their attempts is delivery-outcome.repository.ts). An instance
// takes deliveries by a lease: it sets due_at to the lease's end and lease_token to its own token, in one transaction;
// whatever it
// then records is conditional on still holding that lease (token and attempt number), so an instance that lost
// its lease (it stalled past the end) cannot overwrite what another recorded since. An attempt counts (against
// the retry schedule, and in the log) from the moment its start is recorded, which the instance does before it
// sends the request: a delivery taken but never started goes back as it was. An instance that dies simply
// never records anything more: at the lease's end the delivery is due again, and any instance retries it.
import type { Writer } from '../../db/database.js'
import { dueDeliveries, type DueQuery, type DueRow } from '../../db/due-deliveries.js'
import type { EventRow } from '../../events/event.repository.js'

export interface ClaimQuery extends DueQuery {
  leaseMs: number
  leaseToken: string
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

/**
 * Takes due deliveries of enabled endpoints for an attempt each: at most `total`, and per endpoint at most its
 * free places, oldest due first. A started attempt left unrecorded by a dead holder is logged as `interrupted`
 * here; a delivery it held without starting comes back as it was.
 */
export async function claimDueDeliveries(trx: Writer, query: ClaimQuery): Promise<ClaimedDelivery[]> {
  const due = await dueDeliveries(trx, query)
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
