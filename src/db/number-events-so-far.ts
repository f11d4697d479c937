// Before a decision about "the events from now on": every event committed so far numbered, on the store that
// numbers events after their commit (PostgreSQL); SQLite's have their ids from their insert.
import type { Writer } from './database.js'
import { onPostgres } from './dialect.js'
import { numberCommittedEvents, NUMBERING_BATCH } from './postgres/number-events.js'

/**
 * Gives every event committed so far its id, in `trx` (PostgreSQL; SQLite's have theirs): what `trx` reads next
 * then counts every change acknowledged before it, numbered or not, for decisions about "the events from now
 * on" (an endpoint registered or enabled receives those after the newest id).
 */
export async function numberEventsCommittedSoFar(trx: Writer): Promise<void> {
  if (!onPostgres(trx)) return
  while ((await numberCommittedEvents(trx, NUMBERING_BATCH)).more);
}
