// The delivery log as the API shows it: an endpoint's deliveries, each with its attempts, read in one statement.
import type { SelectQueryBuilder } from 'kysely'
import type { Database, DeliveryStatus, Reader } from '../../db/database.js'
import type { AttemptRow, DeliveryRow } from '../delivery/delivery.repository.js'

export interface DeliveryPageQuery {
  endpointId: number
  /** Only deliveries with a smaller id (newest first): the keyset cursor. */
  beforeId: number | undefined
  status: DeliveryStatus | undefined
  limit: number
}

export interface DeliveryWithAttempts {
  delivery: DeliveryRow
  attempts: AttemptRow[]
}

/** An endpoint's deliveries, newest first, each with its attempts in order. */
export async function listDeliveries(db: Reader, query: DeliveryPageQuery): Promise<DeliveryWithAttempts[]> {
  let page = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', query.endpointId)
    .orderBy('id', 'desc')
    .limit(query.limit)
  if (query.beforeId !== undefined) page = page.where('id', '<', query.beforeId)
  if (query.status !== undefined) page = page.where('status', '=', query.status)
  return withAttempts(db, page)
}

export async function findDelivery(
  db: Reader,
  endpointId: number,
  id: number,
): Promise<DeliveryWithAttempts | undefined> {
  const delivery = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', id)
    .where('endpoint_id', '=', endpointId)
  return (await withAttempts(db, delivery))[0]
}

/**
 * The deliveries `deliveries` selects (in its order), each with its attempts in order, read in one statement: one
 * snapshot, so that no attempt is shown whose delivery is shown as it was before that attempt was recorded (read in
 * two statements, a commit between them could do that on PostgreSQL).
 */
async function withAttempts(
  db: Reader,
  deliveries: SelectQueryBuilder<Database, 'webhook_deliveries', DeliveryRow>,
): Promise<DeliveryWithAttempts[]> {
  const rows = await db
    .selectFrom(deliveries.as('d'))
    .leftJoin('webhook_attempts as a', 'a.delivery_id', 'd.id')
    .selectAll('d')
    .select([
      'a.attempt as attempt_number',
      'a.started_at as attempt_started_at',
      'a.duration_ms as attempt_duration_ms',
      'a.outcome as attempt_outcome',
      'a.response_status as attempt_response_status',
      'a.error as attempt_error',
      'a.response_body as attempt_response_body',
    ])
    .orderBy('d.id', 'desc')
    .orderBy('a.attempt')
    .execute()
  const shown: DeliveryWithAttempts[] = []
  for (const row of rows) {
    let current = shown.at(-1)
    if (current === undefined || Number(current.delivery.id) !== Number(row.id)) {
      const { id, endpoint_id, event_id, status, attempts, due_at, lease_token, created_at, finished_at } = row
      current = {
        delivery: { id, endpoint_id, event_id, status, attempts, due_at, lease_token, created_at, finished_at },
        attempts: [],
      }
      shown.push(current)
    }
    if (row.attempt_number === null) continue
    current.attempts.push({
      delivery_id: row.id,
      attempt: row.attempt_number,
      started_at: row.attempt_started_at as string,
      duration_ms: row.attempt_duration_ms as number,
      outcome: row.attempt_outcome as AttemptRow['outcome'],
      response_status: row.attempt_response_status,
      error: row.attempt_error,
      response_body: row.attempt_response_body,
    })
  }
  return shown
}
