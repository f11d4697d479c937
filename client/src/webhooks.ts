// Webhook endpoints: register, list, read, change, delete, rotate the secret, and their deliveries.
import {
  dataOf,
  everyItem,
  newIdempotencyKey,
  type CallOptions,
  type Context,
  type Page,
  type WriteOptions,
} from './context.js'
import { nextLinkParameter } from './headers.js'
import type {
  ListWebhookDeliveriesQuery,
  ListWebhooksQuery,
  NewWebhook,
  Webhook,
  WebhookDelivery,
  WebhookPatch,
  WebhookWithSecret,
} from './schemas.js'

export interface WebhooksApi {
  /** [beta] Registers an endpoint; the answer's `secret` (`whsec_…`) is shown only here: store it. */
  create(webhook: NewWebhook, options?: WriteOptions): Promise<WebhookWithSecret>
  /** [beta] One page of endpoints (without secrets) in ascending id order; pass `nextCursor` for the next. */
  list(query?: ListWebhooksQuery, options?: CallOptions): Promise<Page<Webhook>>
  /** [beta] Every endpoint, page after page. */
  listAll(query?: Omit<ListWebhooksQuery, 'cursor'>, options?: CallOptions): AsyncGenerator<Webhook, void, undefined>
  /** [beta] Reads one endpoint (without its secret). */
  get(webhookId: number, options?: CallOptions): Promise<Webhook>
  /**
   * [beta] Changes `url`, `types`, `description` or `status` (JSON Merge Patch: `null` removes `types` or
   * `description`).
   */
  update(webhookId: number, patch: WebhookPatch, options?: WriteOptions): Promise<Webhook>
  /** [beta] Deletes an endpoint with its pending deliveries and delivery log. */
  remove(webhookId: number, options?: WriteOptions): Promise<void>
  /** [beta] A new secret, shown only in this answer; the previous one keeps signing beside it for a while. */
  rotateSecret(webhookId: number, options?: WriteOptions): Promise<WebhookWithSecret>
  /** [beta] One page of an endpoint's deliveries, newest first, each with its attempts. */
  listDeliveries(
    webhookId: number,
    query?: ListWebhookDeliveriesQuery,
    options?: CallOptions,
  ): Promise<Page<WebhookDelivery>>
  /** [beta] Every delivery of an endpoint, newest first, page after page. */
  listAllDeliveries(
    webhookId: number,
    query?: Omit<ListWebhookDeliveriesQuery, 'cursor'>,
    options?: CallOptions,
  ): AsyncGenerator<WebhookDelivery, void, undefined>
  /** [beta] Makes a delivery pending and due now (a failed one included). */
  retryDelivery(webhookId: number, deliveryId: number, options?: WriteOptions): Promise<WebhookDelivery>
}

export function webhooksApi({ api, transport }: Context): WebhooksApi {
  const list = async (query: ListWebhooksQuery = {}, { signal }: CallOptions = {}): Promise<Page<Webhook>> => {
    const answer = await api.GET('/webhooks', {
      params: { query },
      signal,
      fetch: transport.fetchFor({ operationId: 'listWebhooks' }),
    })
    return { items: dataOf(answer), nextCursor: nextLinkParameter(answer.response.headers, 'cursor') }
  }
  const listDeliveries = async (
    webhookId: number,
    query: ListWebhookDeliveriesQuery = {},
    { signal }: CallOptions = {},
  ): Promise<Page<WebhookDelivery>> => {
    const answer = await api.GET('/webhooks/{webhookId}/deliveries', {
      params: { path: { webhookId }, query },
      signal,
      fetch: transport.fetchFor({ operationId: 'listWebhookDeliveries' }),
    })
    return { items: dataOf(answer), nextCursor: nextLinkParameter(answer.response.headers, 'cursor') }
  }
  const withCursor = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor })
  return {
    async create(webhook, { signal, idempotencyKey = newIdempotencyKey() } = {}) {
      const answer = await api.POST('/webhooks', {
        params: { header: { 'Idempotency-Key': idempotencyKey } },
        body: webhook,
        signal,
        fetch: transport.fetchFor({ operationId: 'createWebhook' }),
      })
      return dataOf(answer)
    },
    list,
    listAll: (query = {}, options = {}) => everyItem((cursor) => list({ ...query, ...withCursor(cursor) }, options)),
    async get(webhookId, { signal } = {}) {
      const answer = await api.GET('/webhooks/{webhookId}', {
        params: { path: { webhookId } },
        signal,
        fetch: transport.fetchFor({ operationId: 'getWebhook' }),
      })
      return dataOf(answer)
    },
    async update(webhookId, patch, { signal, idempotencyKey = newIdempotencyKey() } = {}) {
      const answer = await api.PATCH('/webhooks/{webhookId}', {
        params: { path: { webhookId }, header: { 'Idempotency-Key': idempotencyKey } },
        body: patch,
        signal,
        fetch: transport.fetchFor({ operationId: 'updateWebhook' }),
      })
      return dataOf(answer)
    },
    async remove(webhookId, { signal, idempotencyKey = newIdempotencyKey() } = {}) {
      const answer = await api.DELETE('/webhooks/{webhookId}', {
        params: { path: { webhookId }, header: { 'Idempotency-Key': idempotencyKey } },
        signal,
        fetch: transport.fetchFor({ operationId: 'deleteWebhook' }),
      })
      dataOf(answer)
    },
    async rotateSecret(webhookId, { signal, idempotencyKey = newIdempotencyKey() } = {}) {
      const answer = await api.POST('/webhooks/{webhookId}/rotate-secret', {
        params: { path: { webhookId }, header: { 'Idempotency-Key': idempotencyKey } },
        signal,
        fetch: transport.fetchFor({ operationId: 'rotateWebhookSecret' }),
      })
      return dataOf(answer)
    },
    listDeliveries,
    listAllDeliveries: (webhookId, query = {}, options = {}) =>
      everyItem((cursor) => listDeliveries(webhookId, { ...query, ...withCursor(cursor) }, options)),
    async retryDelivery(webhookId, deliveryId, { signal, idempotencyKey = newIdempotencyKey() } = {}) {
      const answer = await api.POST('/webhooks/{webhookId}/deliveries/{deliveryId}/retry', {
        params: { path: { webhookId, deliveryId }, header: { 'Idempotency-Key': idempotencyKey } },
        signal,
        fetch: transport.fetchFor({ operationId: 'retryWebhookDelivery' }),
      })
      return dataOf(answer)
    },
  }
}
