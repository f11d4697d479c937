// Which events webhooks still need, whatever their age: the retention purge (events/event-purge.ts) keeps them.
// Two kinds: the events the fan-out has not reached yet (they wait in the event log to become deliveries), and
// those of pending deliveries (a retry that waits hours, a disabled endpoint's deliveries that wait until it is
// enabled again). Without the second, a delivery whose event was purged between its attempts ended `event_gone`.
import { sql } from 'kysely'
import type { DeliveryStatus, Reader } from '../../db/database.js'
import { fanOutPosition } from './fan-out.repository.js'

// A literal, so that the partial index on pending deliveries' events (migration 0014) serves the query.
const PENDING = sql.lit<DeliveryStatus>('pending')

/** The smallest event id a pending delivery refers to; undefined when none is pending. One probe of its index. */
async function oldestPendingEventId(db: Reader): Promise<number | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('event_id').as('oldest'))
    .where('status', '=', PENDING)
    .executeTakeFirst()
  return row?.oldest === null || row?.oldest === undefined ? undefined : Number(row.oldest)
}

/**
 * The last event webhooks have done with: every event after it is still needed (undefined: none is). Pending
 * deliveries count whatever their endpoint's status; those of a deleted endpoint hold their events only until
 * the delivery purge removes them.
 */
export async function webhookEventsNeededAfter(db: Reader): Promise<number | undefined> {
  // The position first: a fan-out that commits between the two reads made its deliveries for events after the
  // position read, which are kept. Read the other way round, its deliveries could be missed and their events go.
  const position = await fanOutPosition(db)
  const oldestPending = await oldestPendingEventId(db)
  const bounds = [position, oldestPending === undefined ? undefined : oldestPending - 1].filter(
    (bound): bound is number => bound !== undefined,
  )
  return bounds.length === 0 ? undefined : Math.min(...bounds)
}
