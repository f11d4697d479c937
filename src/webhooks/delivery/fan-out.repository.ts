// The fan-out: the deliverer turns readable events into pending deliveries, one per event and enabled endpoint
// that subscribes to its type, a batch of events at a time from a stored position (webhook_fan_out). It reads
// the same feed as GET /v1/events, under the same rule (an event is read only once every smaller id is readable
// or will never exist), so no committed event is skipped, whichever instance wrote it; a rolled-back one never
// appears. The deliveries and the new position commit together: a fan-out that fails or is lost in a crash is
// simply made again from the old position, so nothing is lost and nothing is created twice.
// Writers pay nothing for it: a create with subscribed endpoints is the same statement as one without.
import { sql } from 'kysely'
import type { Reader, Writer } from '../../db/database.js'
import { epochMilliseconds } from '../../db/epoch-milliseconds.js'
import { lockingRows } from '../../db/row-locks.js'
import { newestReadableEventId, readableEventsAfter } from '../../events/event.repository.js'

export interface FanOutResult {
  /** Deliveries created. */
  deliveries: number
  /** True when the batch was full: more readable events may wait. */
  more: boolean
}

const NOTHING: FanOutResult = { deliveries: 0, more: false }

/** The fan-out's position, and the smallest receives_after of the enabled endpoints (null: none is enabled). */
function positionAndFirstWanted(db: Reader) {
  return db.selectFrom('webhook_fan_out').select((eb) => [
    'position',
    eb
      .selectFrom('webhook_endpoints')
      .select((inner) => inner.fn.min('receives_after').as('first'))
      .where('status', '=', 'enabled')
      .as('first'),
  ])
}

/**
 * Pending deliveries for the events after `from` up to `through`, one per enabled endpoint (or the one named)
 * that subscribes to the event's type and has not had it (receives_after), in event order.
 */
function insertDeliveries(
  trx: Writer,
  { from, through, endpointId }: { from: number; through: number; endpointId?: number },
) {
  return trx
    .insertInto('webhook_deliveries')
    .columns(['endpoint_id', 'event_id', 'status', 'attempts', 'due_at', 'created_at'])
    .expression((eb) => {
      let select = eb
        .selectFrom('events as event')
        .innerJoin('webhook_endpoints as endpoint', (join) =>
          join
            .on('endpoint.status', '=', 'enabled')
            .onRef('event.id', '>', 'endpoint.receives_after')
            .on((on) =>
              on.or([
                on('endpoint.types', 'is', null),
                on('endpoint.types', 'like', sql<string>`'%,' || ${sql.ref('event.type')} || ',%'`),
              ]),
            ),
        )
        .select([
          'endpoint.id',
          'event.id',
          sql.lit('pending').as('status'),
          sql.lit(0).as('attempts'),
          epochMilliseconds(trx, 'event.occurred_at').as('due_at'),
          'event.occurred_at',
        ])
        .where('event.id', '>', from)
        .where('event.id', '<=', through)
      if (endpointId !== undefined) select = select.where('endpoint.id', '=', endpointId)
      return select.orderBy('event.id').orderBy('endpoint.id')
    })
    .executeTakeFirst()
}

/**
 * Creates the deliveries of the next `limit` readable events, due from their event's time on (so that the age
 * of the oldest due delivery counts from the commit). On PostgreSQL an instance that finds another one's fan-out
 * in progress skips its turn (SKIP LOCKED) instead of waiting.
 */
export async function fanOutEvents(trx: Writer, limit: number): Promise<FanOutResult> {
  const row = await lockingRows(trx, positionAndFirstWanted(trx), { skipLocked: true }).executeTakeFirst()
  // Another instance holds the position (it is fanning out), or no endpoint is enabled: nothing to do. The
  // position stays behind meanwhile; an endpoint enabled later receives only events after its receives_after.
  if (!row || row.first === null || row.first === undefined) return NOTHING
  const position = Number(row.position)
  const from = Math.max(position, Number(row.first))
  const { count, last } = await readableEventsAfter(trx, from, limit)
  if (last === undefined) return NOTHING
  const inserted = await insertDeliveries(trx, { from, through: last })
  await trx.updateTable('webhook_fan_out').set({ position: last }).execute()
  return { deliveries: Number(inserted.numInsertedOrUpdatedRows ?? 0n), more: count === limit }
}

/**
 * Before an endpoint's status or types change: makes its deliveries, under its state until now, for the readable
 * events the fan-out has not reached yet, and records that it has had them (receives_after). Otherwise events
 * committed while it was enabled, still waiting in the event log, would be judged by its new state (a disabled
 * endpoint enabled again would never get them). Holds the fan-out's position meanwhile (on PostgreSQL it waits
 * for a fan-out in progress), so that the two never make the same delivery.
 */
export async function catchUpEndpoint(trx: Writer, endpointId: number): Promise<void> {
  const state = trx.selectFrom('webhook_fan_out').select('position')
  const { position } = await lockingRows(trx, state, { skipLocked: false }).executeTakeFirstOrThrow()
  const endpoint = await trx
    .selectFrom('webhook_endpoints')
    .select('receives_after')
    .where('id', '=', endpointId)
    .executeTakeFirst()
  if (!endpoint) return
  const from = Math.max(Number(position), Number(endpoint.receives_after))
  const head = await newestReadableEventId(trx)
  if (head <= from) return
  await insertDeliveries(trx, { from, through: head, endpointId })
  await trx.updateTable('webhook_endpoints').set({ receives_after: head }).where('id', '=', endpointId).execute()
}

/**
 * While an endpoint is enabled, the last event the fan-out has done with: the events after it wait to be fanned
 * out (the retention purge keeps them). Undefined when no endpoint is enabled.
 */
export async function fanOutPosition(db: Reader): Promise<number | undefined> {
  const row = await positionAndFirstWanted(db).executeTakeFirst()
  if (!row || row.first === null || row.first === undefined) return undefined
  return Math.max(Number(row.position), Number(row.first))
}
