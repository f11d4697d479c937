// Webhook endpoints (beta): register, list, read, change, delete, rotate the secret.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { CursorCodec } from '../../http/cursor.js'
import {
  BODILESS_ERRORS,
  BODY_ERRORS,
  errorResponses,
  EVERY_OPERATION_ERRORS,
  IDEMPOTENCY_ERRORS,
} from '../../http/errors/error.schema.js'
import type { ErrorCode } from '../../http/errors/errors.js'
import { PATCH_UNSUPPORTED_MEDIA_TYPE } from '../../http/errors/patch-errors.js'
import { addJsonBodyParser } from '../../http/json/json-body.js'
import { MERGE_PATCH, PATCH_MEDIA_TYPES } from '../../http/json/media-type.js'
import { rejectOtherMethods } from '../../http/errors/method-not-allowed.js'
import { DEFAULT_PAGE_SIZE, nextPageLink } from '../../http/pagination.js'
import { API_PREFIX } from '../../http/paths.js'
import { publicOrigin } from '../../http/request/public-origin.js'
import { refuseBody } from '../../http/json/refuse-body.js'
import { LocationHeader, NextPageLinkHeader } from '../../http/openapi/response-headers.js'
import { NoQuery } from '../../http/openapi/schema-primitives.js'
import { BETA } from '../../http/openapi/stability.js'
import type { Idempotency, StoredBodyCodec } from '../../idempotency/idempotent.js'
import { IdempotencyHeaders, ReplayedHeaderSchema } from '../../idempotency/idempotency.schema.js'
import {
  ListWebhooksQuery,
  NewWebhookSchema,
  WebhookIdParams,
  WebhookPatchSchema,
  WebhookSchema,
  WebhooksSchema,
  WebhookWithSecretSchema,
} from './webhook.schema.js'
import { DESCRIPTIONS } from './webhook.descriptions.js'
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
/** What a write to one endpoint may answer, with what it may answer about a request body (`bodyErrors`). */
const endpointWriteErrors = (bodyErrors: readonly ErrorCode[]) =>
  errorResponses(...EVERY_OPERATION_ERRORS, 'not_found', ...IDEMPOTENCY_ERRORS, ...bodyErrors)

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
        description: DESCRIPTIONS.createWebhook,
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
          ...errorResponses(...EVERY_OPERATION_ERRORS, 'conflict', ...IDEMPOTENCY_ERRORS, ...BODY_ERRORS),
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
        description: DESCRIPTIONS.listWebhooks,
        ...BETA,
        querystring: ListWebhooksQuery,
        response: {
          200: { ...WebhooksSchema, description: 'A page of endpoints.', headers: { Link: NextPageLinkHeader } },
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
        description: DESCRIPTIONS.getWebhook,
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
        description: DESCRIPTIONS.updateWebhook,
        ...BETA,
        ...ENDPOINT_WRITE,
        consumes: PATCH_MEDIA_TYPES,
        body: WebhookPatchSchema,
        response: {
          200: { ...WebhookSchema, description: 'The endpoint as stored now.', headers: ReplayedHeaderSchema },
          ...endpointWriteErrors(BODY_ERRORS),
          ...PATCH_UNSUPPORTED_MEDIA_TYPE,
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
        description: DESCRIPTIONS.deleteWebhook,
        ...BETA,
        ...ENDPOINT_WRITE,
        response: {
          204: Type.Null({ description: 'Deleted. No body.', headers: ReplayedHeaderSchema }),
          ...endpointWriteErrors(BODILESS_ERRORS),
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
        description: DESCRIPTIONS.rotateWebhookSecret(overlap),
        ...BETA,
        ...ENDPOINT_WRITE,
        response: {
          200: {
            ...WebhookWithSecretSchema,
            description: DESCRIPTIONS.rotatedWebhook,
            headers: ReplayedHeaderSchema,
          },
          ...endpointWriteErrors(BODILESS_ERRORS),
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
