import { sql } from 'kysely'
import type { DeliveryStatus, Writer } from '../database.js'
import type { DueQuery, DueRow } from '../due-deliveries.js'

const PENDING = sql.lit<DeliveryStatus>('pending')

/**
 * PostgreSQL: one statement. Per enabled endpoint its oldest due deliveries, as many as it has free places,
 * locked with SKIP LOCKED so that instances claiming at once take different rows instead of waiting for each other.
 */
export async function dueDeliveriesOnPostgres(trx: Writer, query: DueQuery): Promise<DueRow[]> {
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
