// The due deliveries a claim takes (webhooks/delivery/delivery-claim.repository.ts): per enabled endpoint its oldest
// due ones, as many as it has free places. Each store has its own statement (db/sqlite/, db/postgres/).
import type { Writer } from './database.js'
import { onPostgres } from './dialect.js'
import { dueDeliveriesOnPostgres } from './postgres/due-deliveries.js'
import { dueDeliveriesOnSqlite } from './sqlite/due-deliveries.js'

export interface DueQuery {
  /** Epoch milliseconds. */
  now: number
  /** Deliveries to take at most, in all and per endpoint (less what is not free there). */
  total: number
  perEndpoint: number
  /** Per endpoint, how many of its `perEndpoint` are not free: held by this instance, or withheld (throttled). */
  notFree: ReadonlyMap<number, number>
}

export interface DueRow {
  id: number
  endpoint_id: number
  event_id: number
  /** Attempts begun (their start recorded) before this claim. */
  attempts: number
  /** Set when a claim was never recorded: its instance died (or stalled) holding the lease. */
  lease_token: string | null
  due_at: number
}

/** The due deliveries of `query`, oldest due first, in `trx` (on PostgreSQL locked, passing over held ones). */
export function dueDeliveries(trx: Writer, query: DueQuery): Promise<DueRow[]> {
  return onPostgres(trx) ? dueDeliveriesOnPostgres(trx, query) : dueDeliveriesOnSqlite(trx, query)
}
