// The webhook endpoints' use cases: registration (with the check of its URL), changes, secret rotation, and the
// delivery log with its manual retry. Deliveries themselves are created from the event feed and made by the
// delivery worker (fan-out.repository.ts, delivery-worker.ts); this service only reads and reschedules them.
// An endpoint receives the events that become readable after it is registered, or enabled again.
import type { DataAccess, DeliveryStatus } from '../../db/database.js'
import type { UnitOfWork } from '../../db/unit-of-work.js'
import { oneWriterAtATime } from '../../db/table-locks.js'
import { Conflict, NotFound } from '../../domain/errors.js'
import { eventKept, newestReadableEventId, numberEventsCommittedSoFar } from '../../events/event.repository.js'
import { pageOf, rowsToFetch, type Page } from '../../http/pagination.js'
import { findDelivery, listDeliveries } from './delivery-log.repository.js'
import { scheduleDeliveryNow } from '../delivery/delivery.repository.js'
import { catchUpEndpoint } from '../delivery/fan-out.repository.js'
import { checkDestination } from '../destination.js'
import { newSigningSecret, type SecretBox } from '../secret-box.js'
import { storedTypes, toDelivery, toWebhook } from './webhook.mapper.js'
import {
  countWebhooks,
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
  type WebhookChanges,
  type WebhookRow,
} from './webhook.repository.js'
import type { Delivery } from './webhook-delivery.schema.js'
import type { NewWebhook, Webhook, WebhookPatch, WebhookWithSecret } from './webhook.schema.js'

/**
 * The most endpoints a shop may have, enabled or not: every event is sent to each of them, so one key that
 * registers endpoints without end would multiply the work of every change.
 */
export const MAX_WEBHOOK_ENDPOINTS = 100

/** Whether `changes` sets a column (updated_at aside) to another value than `row` holds. */
function changesAnything(row: WebhookRow, changes: WebhookChanges): boolean {
  return (['url', 'types', 'description', 'status'] as const).some(
    (column) => changes[column] !== undefined && changes[column] !== row[column],
  )
}

export interface DeliveryPageQuery {
  /** Only deliveries older than this one (newest first). */
  beforeId: number | undefined
  status: DeliveryStatus | undefined
  limit: number
}

export interface WebhookService {
  /** Registers an endpoint, enabled, with a new secret (returned only here and by rotateSecret). */
  create(uow: UnitOfWork, input: NewWebhook): Promise<WebhookWithSecret>
  list(query: { afterId: number | undefined; limit: number }): Promise<Page<Webhook>>
  get(id: number): Promise<Webhook>
  update(uow: UnitOfWork, id: number, patch: WebhookPatch): Promise<Webhook>
  /** Deletes the endpoint, its pending deliveries and its delivery log. */
  remove(uow: UnitOfWork, id: number): Promise<void>
  /** A new secret; the previous one keeps signing beside it for the overlap period. */
  rotateSecret(uow: UnitOfWork, id: number): Promise<WebhookWithSecret>
  /**
   * Loads the key that seals secrets: await it before opening the unit of work of create or rotateSecret, since
   * its first load may store the key in a transaction of its own (on SQLite, one the open unit of work blocks).
   */
  secretsReady(): Promise<void>
  deliveries(id: number, query: DeliveryPageQuery): Promise<Page<Delivery>>
  /** Makes a delivery due now (again, if it had finished). Conflict while one of its attempts is in progress. */
  retry(uow: UnitOfWork, id: number, deliveryId: number): Promise<Delivery>
}

export interface WebhookServiceDependencies {
  data: DataAccess
  /** Seals the secrets stored (once the key is at hand). */
  secrets: () => Promise<SecretBox>
  allowPrivateNetworks: boolean
  secretOverlapMs: number
  /**
   * A delivery was made due, or an endpoint enabled (so commits may make deliveries): the local worker looks at once.
   */
  deliveryScheduled: () => void
}

export function createWebhookService({
  data,
  secrets,
  allowPrivateNetworks,
  secretOverlapMs,
  deliveryScheduled,
}: WebhookServiceDependencies): WebhookService {
  const existing = async (id: number) => {
    const row = await findWebhook(data.read, id)
    if (!row) throw new NotFound('webhook', id)
    return row
  }

  return {
    // Writes run in the caller's unit of work; the delivery worker looks again once it has ended.
    async create({ trx, afterwards }, input) {
      const url = checkDestination(input.url, allowPrivateNetworks)
      const secret = newSigningSecret()
      const sealed = (await secrets()).seal(secret)
      const now = new Date().toISOString()
      // It receives the events of the changes acknowledged from now on. Numbered before the table is locked, as a
      // change of status or types does (it numbers, then writes the table): in the other order the two deadlock.
      await numberEventsCommittedSoFar(trx)
      // Counted with other registrations kept waiting, so that two at once cannot both take the last place.
      await oneWriterAtATime(trx, 'webhook_endpoints')
      if ((await countWebhooks(trx)) >= MAX_WEBHOOK_ENDPOINTS)
        throw new Conflict(
          `There are already ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints, the most there may be: delete one before ` +
            'registering another. Nothing was changed.',
        )
      afterwards(deliveryScheduled)
      const row = await insertWebhook(trx, {
        url,
        types: storedTypes(input.types),
        description: input.description ?? null,
        status: 'enabled',
        secret: sealed,
        previous_secret: null,
        previous_secret_expires_at: null,
        created_at: now,
        updated_at: now,
        receives_after: await newestReadableEventId(trx),
      })
      return { ...toWebhook(row), secret }
    },

    async list(query) {
      return pageOf(
        await listWebhooks(data.read, { ...query, limit: rowsToFetch(query.limit) }),
        query.limit,
        toWebhook,
      )
    },

    async get(id) {
      return toWebhook(await existing(id))
    },

    async update({ trx, afterwards }, id, patch) {
      const changes: WebhookChanges = { updated_at: new Date().toISOString() }
      if (patch.url !== undefined) changes.url = checkDestination(patch.url, allowPrivateNetworks)
      if (patch.types !== undefined) changes.types = storedTypes(patch.types as NewWebhook['types'] | null)
      if (patch.description !== undefined) changes.description = patch.description
      if (patch.status !== undefined) changes.status = patch.status
      // A patch that changes nothing leaves the endpoint as it is, its updatedAt included.
      const current = await findWebhook(trx, id)
      if (!current) throw new NotFound('webhook', id)
      if (!changesAnything(current, changes)) return toWebhook(current)
      afterwards(deliveryScheduled)
      // Events not fanned out yet (those of every change acknowledged so far) are delivered as the endpoint was
      // when they were committed.
      if (patch.status !== undefined || patch.types !== undefined) {
        await numberEventsCommittedSoFar(trx)
        await catchUpEndpoint(trx, id)
      }
      const enabledAfter = patch.status === 'enabled' ? await newestReadableEventId(trx) : undefined
      const row = await updateWebhook(trx, id, changes, enabledAfter)
      if (!row) throw new NotFound('webhook', id)
      return toWebhook(row)
    },

    async remove({ trx }, id) {
      if (!(await deleteWebhook(trx, id))) throw new NotFound('webhook', id)
    },

    async rotateSecret({ trx }, id) {
      const secret = newSigningSecret()
      const sealed = (await secrets()).seal(secret)
      const now = Date.now()
      const row = await rotateWebhookSecret(trx, id, {
        secret: sealed,
        previousExpiresAt: new Date(now + secretOverlapMs).toISOString(),
        now: new Date(now).toISOString(),
      })
      if (!row) throw new NotFound('webhook', id)
      return { ...toWebhook(row), secret }
    },

    async secretsReady() {
      await secrets()
    },

    async deliveries(id, query) {
      await existing(id)
      const rows = await listDeliveries(data.read, { endpointId: id, ...query, limit: rowsToFetch(query.limit) })
      return pageOf(rows, query.limit, toDelivery)
    },

    async retry({ trx, afterwards }, id, deliveryId) {
      const scheduled = await scheduleDeliveryNow(trx, id, deliveryId, Date.now())
      if (!scheduled) {
        if (!(await findWebhook(trx, id))) throw new NotFound('webhook', id)
        const delivery = await findDelivery(trx, id, deliveryId)
        if (!delivery) throw new NotFound('delivery', deliveryId)
        if (!(await eventKept(trx, Number(delivery.delivery.event_id))))
          throw new Conflict(
            `The event of delivery ${deliveryId} is no longer kept (EVENT_RETENTION_DAYS): it cannot be sent ` +
              'again. Nothing was changed.',
          )
        throw new Conflict(`An attempt of delivery ${deliveryId} is in progress; retry once it has ended.`)
      }
      const found = await findDelivery(trx, id, deliveryId)
      if (!found) throw new Error(`delivery ${deliveryId} vanished inside its transaction`)
      afterwards(deliveryScheduled)
      return toDelivery(found)
    },
  }
}
