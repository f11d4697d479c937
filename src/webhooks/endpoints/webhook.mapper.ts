// The one place rows become the API's Webhook and Delivery. Secrets never pass through here: a response that
// shows one (creation, rotation) adds it to the mapped endpoint itself.
import type { EventType } from '../../db/database.js'
import type { DeliveryWithAttempts } from './delivery-log.repository.js'
import type { Delivery } from './webhook-delivery.schema.js'
import type { Webhook } from './webhook.schema.js'
import type { WebhookRow } from './webhook.repository.js'
import { webhookId } from '../signature.js'

/** The stored form of a type list: `,a,b,` (what the fan-out matches), or null for every type. */
export function storedTypes(types: readonly EventType[] | null | undefined): string | null {
  return types ? `,${[...new Set(types)].join(',')},` : null
}

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: Number(row.id),
    url: row.url,
    types: row.types === null ? null : (row.types.slice(1, -1).split(',') as EventType[]),
    description: row.description,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    previousSecretExpiresAt: row.previous_secret_expires_at,
  }
}

export function toDelivery({ delivery, attempts }: DeliveryWithAttempts): Delivery {
  const eventId = Number(delivery.event_id)
  // Held under a lease that has not ended: an attempt is in progress. One whose lease ended is due for any instance.
  const waiting =
    delivery.status === 'pending' &&
    delivery.due_at !== null &&
    (delivery.lease_token === null || Number(delivery.due_at) <= Date.now())
  return {
    id: Number(delivery.id),
    eventId,
    webhookId: webhookId(eventId),
    status: delivery.status,
    nextAttemptAt: waiting ? new Date(Number(delivery.due_at)).toISOString() : null,
    createdAt: delivery.created_at,
    finishedAt: delivery.finished_at,
    attempts: attempts.map((attempt) => ({
      attempt: Number(attempt.attempt),
      startedAt: attempt.started_at,
      durationMs: Number(attempt.duration_ms),
      outcome: attempt.outcome,
      responseStatus: attempt.response_status === null ? null : Number(attempt.response_status),
      error: attempt.error,
      responseBody: attempt.response_body,
    })),
  }
}
