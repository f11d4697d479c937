// Webhook endpoints (beta): register, list, read, change, delete, rotate the secret.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { CursorCodec } from '../http/cursor.js'
import { BODY_ERRORS, errorResponses, EVERY_OPERATION_ERRORS, IDEMPOTENCY_ERRORS } from '../http/error.schema.js'
import { addJsonBodyParser } from '../http/json-body.js'
import { MERGE_PATCH } from '../http/media-type.js'
import { rejectOtherMethods } from '../http/method-not-allowed.js'
import { DEFAULT_PAGE_SIZE, nextPageLink } from '../http/pagination.js'
import { API_PREFIX } from '../http/paths.js'
import { publicOrigin } from '../http/public-origin.js'
import { refuseBody } from '../http/refuse-body.js'
import { LocationHeader, NextPageLinkHeader } from '../http/response-headers.js'
import { NoQuery } from '../http/schema-primitives.js'
import { BETA, BETA_NOTE } from '../http/stability.js'
import type { Idempotency, StoredBodyCodec } from '../idempotency/idempotent.js'
import { IdempotencyHeaders, ReplayedHeaderSchema } from '../idempotency/idempotency.schema.js'
import {
  ListWebhooksQuery,
  NewWebhookSchema,
  WebhookIdParams,
  WebhookPatchSchema,
  WebhookSchema,
  WebhooksSchema,
  WebhookWithSecretSchema,
} from './webhook.schema.js'
import type { WebhookService } from './webhook.service.js'

export interface WebhookRoutesOptions {
  webhooks: WebhookService
  cursors: CursorCodec
  idempotency: Idempotency
  /** Stored responses that show a secret are kept encrypted. */
  storedSecrets: StoredBodyCodec
  publicBaseUrl: string | undefined
  secretOverlapSeconds: number
}

const SCOPE = { scope: 'webhooks:manage' } as const
const TAGS = ['Webhooks']
/** What a write to one endpoint takes: its id, an optional Idempotency-Key, no query parameter. */
const ENDPOINT_WRITE = { querystring: NoQuery, headers: IdempotencyHeaders, params: WebhookIdParams }
const ENDPOINT_WRITE_ERRORS = errorResponses(
  ...EVERY_OPERATION_ERRORS,
  'not_found',
  ...IDEMPOTENCY_ERRORS,
  ...BODY_ERRORS,
)

export const webhookRoutes: FastifyPluginAsyncTypebox<WebhookRoutesOptions> = async (
  app,
  { webhooks, cursors, idempotency, storedSecrets, publicBaseUrl, secretOverlapSeconds },
) => {
  const sealed = { storedBody: storedSecrets }
  addJsonBodyParser(app, MERGE_PATCH)
  const overlap = secretOverlapSeconds % 3600 === 0 ? `${secretOverlapSeconds / 3600} h` : `${secretOverlapSeconds} s`

  app.post(
    '/webhooks',
    {
      config: SCOPE,
      schema: {
        operationId: 'createWebhook',
        tags: TAGS,
        summary: '[beta] Register a webhook endpoint',
        description:
          `${BETA_NOTE}\n\nFrom now on, every event of the subscribed types is POSTed to \`url\` (Standard ` +
          `Webhooks: \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`). ` +
          'The answer holds the signing `secret`, shown only here (and after a rotation): store it. Safe to ' +
          'retry with an `Idempotency-Key`.',
        ...BETA,
        querystring: NoQuery,
        headers: IdempotencyHeaders,
        body: NewWebhookSchema,
        response: {
          201: {
            ...WebhookWithSecretSchema,
            description: 'The endpoint, enabled, with its secret.',
            headers: { Location: LocationHeader, ...ReplayedHeaderSchema },
          },
          ...errorResponses(...EVERY_OPERATION_ERRORS, ...IDEMPOTENCY_ERRORS, ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const origin = publicOrigin(request, publicBaseUrl)
      await webhooks.secretsReady()
      return idempotency.run(
        request,
        reply,
        (uow) => webhooks.create(uow, request.body),
        (webhook) => ({
          status: 201,
          body: webhook,
          headers: { location: `${origin}${API_PREFIX}/webhooks/${webhook.id}` },
        }),
        sealed,
      )
    },
  )

  app.get(
    '/webhooks',
    {
      config: SCOPE,
      schema: {
        operationId: 'listWebhooks',
        tags: TAGS,
        summary: '[beta] List webhook endpoints',
        description:
          `${BETA_NOTE}\n\nEndpoints in ascending id order, without their secrets. When more exist, \`Link: <…>; ` +
          `rel="next"\` points at the next page.`,
        ...BETA,
        querystring: ListWebhooksQuery,
        response: {
          200: {
            ...WebhooksSchema,
            description: 'A page of endpoints.',
            headers: { Link: NextPageLinkHeader },
          },
          ...errorResponses(...EVERY_OPERATION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { limit = DEFAULT_PAGE_SIZE, cursor } = request.query
      const page = await webhooks.list({
        afterId: cursor === undefined ? undefined : cursors.decode(cursor, undefined),
        limit,
      })
      const link = nextPageLink(`${publicOrigin(request, publicBaseUrl)}${API_PREFIX}/webhooks`, page, (afterId) => ({
        limit: String(limit),
        cursor: cursors.encode({ afterId, status: undefined }),
      }))
      if (link !== undefined) reply.header('link', link)
      return page.items
    },
  )

  app.get(
    '/webhooks/:webhookId',
    {
      config: SCOPE,
      schema: {
        operationId: 'getWebhook',
        tags: TAGS,
        summary: '[beta] Get a webhook endpoint',
        description: `${BETA_NOTE}\n\nThe endpoint, without its secret.`,
        ...BETA,
        querystring: NoQuery,
        params: WebhookIdParams,
        response: {
          200: { ...WebhookSchema, description: 'The endpoint.' },
          ...errorResponses(...EVERY_OPERATION_ERRORS, 'not_found'),
        },
      },
    },
    async (request) => webhooks.get(request.params.webhookId),
  )

  app.patch(
    '/webhooks/:webhookId',
    {
      config: SCOPE,
      schema: {
        operationId: 'updateWebhook',
        tags: TAGS,
        summary: '[beta] Change a webhook endpoint',
        description:
          `${BETA_NOTE}\n\nChanges \`url\`, \`types\`, \`description\` or \`status\` with a JSON Merge Patch ` +
          `(RFC 7396; \`${MERGE_PATCH}\`, or \`application/json\` read the same way): the properties given ` +
          'replace the stored ones, ' +
          '`null` removes `types` (every type) or `description`. New events follow the new settings; pending ' +
          'deliveries go to the new `url` from their next attempt on. ' +
          'Disabling pauses the endpoint: events committed meanwhile are not delivered to it, deliveries already ' +
          'pending wait until it is enabled again. Safe to retry with an `Idempotency-Key`.',
        ...BETA,
        ...ENDPOINT_WRITE,
        consumes: [MERGE_PATCH, 'application/json'],
        body: WebhookPatchSchema,
        response: {
          200: { ...WebhookSchema, description: 'The endpoint as stored now.', headers: ReplayedHeaderSchema },
          ...ENDPOINT_WRITE_ERRORS,
        },
      },
    },
    async (request, reply) =>
      idempotency.run(
        request,
        reply,
        (uow) => webhooks.update(uow, request.params.webhookId, request.body),
        (webhook) => ({ status: 200, body: webhook }),
      ),
  )

  app.delete(
    '/webhooks/:webhookId',
    {
      config: SCOPE,
      preValidation: refuseBody,
      schema: {
        operationId: 'deleteWebhook',
        tags: TAGS,
        summary: '[beta] Delete a webhook endpoint',
        description:
          `${BETA_NOTE}\n\nDeletes the endpoint with its pending deliveries and its delivery log: none is ` +
          'attempted again (an attempt in progress may still arrive), and the rows are removed from storage in the ' +
          `background. From then on it is 404. No request body. Safe to retry with an \`Idempotency-Key\`.`,
        ...BETA,
        ...ENDPOINT_WRITE,
        response: {
          204: Type.Null({ description: 'Deleted. No body.', headers: ReplayedHeaderSchema }),
          ...ENDPOINT_WRITE_ERRORS,
        },
      },
    },
    async (request, reply) =>
      idempotency.run(
        request,
        reply,
        (uow) => webhooks.remove(uow, request.params.webhookId),
        () => ({ status: 204, body: undefined }),
      ),
  )

  app.post(
    '/webhooks/:webhookId/rotate-secret',
    {
      config: SCOPE,
      preValidation: refuseBody,
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: TAGS,
        summary: "[beta] Rotate a webhook endpoint's secret",
        description:
          `${BETA_NOTE}\n\nGives the endpoint a new secret, shown only in this answer. For ${overlap} the ` +
          `previous secret keeps signing beside it (\`webhook-signature\` then carries two \`v1,…\` signatures, ` +
          'and either verifies), so the receiver can switch over without losing a delivery; then only the new ' +
          "one signs. A second rotation ends the first one's overlap. No request body. Safe to retry with an " +
          '`Idempotency-Key`.',
        ...BETA,
        ...ENDPOINT_WRITE,
        response: {
          200: {
            ...WebhookWithSecretSchema,
            description:
              'The endpoint with its new secret; `previousSecretExpiresAt` says until when the previous one signs too.',
            headers: ReplayedHeaderSchema,
          },
          ...ENDPOINT_WRITE_ERRORS,
        },
      },
    },
    async (request, reply) => {
      await webhooks.secretsReady()
      return idempotency.run(
        request,
        reply,
        (uow) => webhooks.rotateSecret(uow, request.params.webhookId),
        (webhook) => ({ status: 200, body: webhook }),
        sealed,
      )
    },
  )

  rejectOtherMethods(app, '/webhooks', ['GET', 'POST'])
  rejectOtherMethods(app, '/webhooks/:webhookId', ['GET', 'PATCH', 'DELETE'])
  rejectOtherMethods(app, '/webhooks/:webhookId/rotate-secret', ['POST'])
}
