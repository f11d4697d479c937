// Rows of webhook_deliveries and webhook_attempts: the work queue of every instance, and its log. A delivery is
// pending until an attempt succeeds or the retries run out. Taking deliveries by lease, and recording what became
// of them, is delivery-claim.repository.ts and delivery-outcome.repository.ts; the log as the API shows it is
// delivery-log.repository.ts. Here is what the deliverer reads to decide when to look again, a manual retry, and
// the purge.
import { sql, type Selectable } from 'kysely'
import type { DeliveryStatus, Reader, WebhookAttemptTable, WebhookDeliveryTable, Writer } from '../../db/database.js'
import { lockingRows } from '../../db/row-locks.js'
import { newestReadableEventIdQuery } from '../../events/event.repository.js'

export type DeliveryRow = Selectable<WebhookDeliveryTable>
export type AttemptRow = Selectable<WebhookAttemptTable>

const PENDING = sql.lit<DeliveryStatus>('pending')

export interface DueState {
  /** Whether any endpoint is enabled (only then can commits need deliveries). */
  endpointsEnabled: boolean
  /** Whether readable events wait for the fan-out to create their deliveries. */
  eventsWaiting: boolean
  /**
   * Enabled endpoints with no pending delivery due now (none, or all leased or scheduled later): they could take more.
   */
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

/**
 * Makes a delivery due at once, finished or not (a finished one is sent again, as the same webhook-id); undefined
 * when an attempt of it is in progress, or there is no such delivery of this endpoint, or no such endpoint (a
 * deleted endpoint's deliveries stay until the purge), or its event is no longer kept (a finished delivery does
 * not hold its event: sent again, it could only end `event_gone`). A lease that has ended holds nothing: its
 * instance died or stalled past it, and any instance may take the delivery (the claim logs the attempt it left as
 * interrupted), so it does not refuse the retry either; while the endpoint is disabled nobody takes it, and it
 * would refuse forever. Such a delivery is due already, and keeps its due_at: the lease's end, from which the
 * claim dates the attempt it logs as interrupted.
 */
export async function scheduleDeliveryNow(
  trx: Writer,
  endpointId: number,
  id: number,
  now: number,
): Promise<DeliveryRow | undefined> {
  return trx
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: 'pending',
      due_at: eb.case().when('lease_token', 'is', null).then(now).else(eb.ref('due_at')).end(),
      finished_at: null,
    }))
    .where('id', '=', id)
    .where('endpoint_id', '=', endpointId)
    .where((eb) => eb.or([eb('lease_token', 'is', null), eb('due_at', '<=', now)]))
    .where(({ and, exists, selectFrom }) =>
      and([
        exists(selectFrom('webhook_endpoints').select('id').where('id', '=', endpointId)),
        exists(selectFrom('events').select('events.id').whereRef('events.id', '=', 'webhook_deliveries.event_id')),
      ]),
    )
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
  const finished = trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('finished_at', 'is not', null)
    .where('finished_at', '<', cutoff)
    .limit(limit)
  const orphans = trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', 'not in', (eb) => eb.selectFrom('webhook_endpoints').select('id'))
    .limit(limit)
  const [finishedIds, orphanIds] = [
    await lockingRows(trx, finished, { skipLocked: true }).execute(),
    await lockingRows(trx, orphans, { skipLocked: true }).execute(),
  ]
  const ids = [...new Set([...finishedIds, ...orphanIds].map((row) => row.id))]
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
