// What `petstore webhooks list|deliveries` print: tab-separated lines for operators and scripts, never a secret.
import type { Reader } from '../../db/database.js'
import { listDeliveries } from './delivery-log.repository.js'
import { countOpenDeliveries } from '../delivery/delivery.repository.js'
import { toDelivery, toWebhook } from './webhook.mapper.js'
import { findWebhook, listWebhooks } from './webhook.repository.js'

const PAGE = 1000

/** Control characters of stored text would break the columns (descriptions refuse them; URLs cannot hold them). */
// eslint-disable-next-line no-control-regex
const cell = (text: string) => text.replace(/[\x00-\x1F\x7F]/g, ' ')

/** Every endpoint: id, url, types, status, description, created, pending and failed deliveries. */
export async function webhookListLines(db: Reader): Promise<string[]> {
  const counts = await countOpenDeliveries(db)
  const lines = [['id', 'url', 'types', 'status', 'description', 'created', 'pending', 'failed'].join('\t')]
  for (let afterId: number | undefined; ;) {
    const rows = await listWebhooks(db, { afterId, limit: PAGE })
    for (const webhook of rows.map(toWebhook)) {
      const count = counts.get(webhook.id)
      lines.push(
        [
          webhook.id,
          cell(webhook.url),
          webhook.types?.join(',') ?? 'all',
          webhook.status,
          cell(webhook.description ?? ''),
          webhook.createdAt,
          count?.pending ?? 0,
          count?.failed ?? 0,
        ].join('\t'),
      )
    }
    if (rows.length < PAGE) return lines
    afterId = Number(rows.at(-1)?.id)
  }
}

/**
 * An endpoint's newest deliveries: id, event, status, attempts, last outcome and status, next attempt, last error;
 * undefined when there is no such endpoint.
 */
export async function webhookDeliveryLines(
  db: Reader,
  endpointId: number,
  limit: number,
): Promise<string[] | undefined> {
  if (!(await findWebhook(db, endpointId))) return undefined
  const deliveries = (await listDeliveries(db, { endpointId, beforeId: undefined, status: undefined, limit })).map(
    toDelivery,
  )
  const lines = [
    ['id', 'event', 'status', 'attempts', 'last outcome', 'last response', 'next attempt', 'last error'].join('\t'),
  ]
  for (const delivery of deliveries) {
    const last = delivery.attempts.at(-1)
    lines.push(
      [
        delivery.id,
        delivery.eventId,
        delivery.status,
        delivery.attempts.length,
        last?.outcome ?? '-',
        last?.responseStatus ?? '-',
        delivery.nextAttemptAt ?? (delivery.status === 'pending' ? 'in progress' : '-'),
        cell(last?.error ?? ''),
      ].join('\t'),
    )
  }
  return lines
}
