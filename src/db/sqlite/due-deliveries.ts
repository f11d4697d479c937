import { sql } from 'kysely'
import type { DeliveryStatus, Writer } from '../database.js'
import type { DueQuery, DueRow } from '../due-deliveries.js'

const PENDING = sql.lit<DeliveryStatus>('pending')

/** SQLite has one writer at a time, so the claim's reads see what no one else can change: one query per endpoint. */
export async function dueDeliveriesOnSqlite(trx: Writer, query: DueQuery): Promise<DueRow[]> {
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
