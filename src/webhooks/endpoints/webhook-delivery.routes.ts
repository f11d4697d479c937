// A webhook endpoint's delivery log (beta), and the retry of one delivery.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { DeliveryStatus } from '../../db/database.js'
import type { CursorCodec } from '../../http/cursor.js'
import { BODILESS_ACTION_ERRORS, errorResponses, EVERY_OPERATION_ERRORS } from '../../http/errors/error.schema.js'
import { rejectOtherMethods } from '../../http/errors/method-not-allowed.js'
import { DEFAULT_PAGE_SIZE, nextPageLink } from '../../http/pagination.js'
import { API_PREFIX } from '../../http/paths.js'
import { publicOrigin } from '../../http/request/public-origin.js'
import { refuseBody } from '../../http/json/refuse-body.js'
import { NextPageLinkHeader } from '../../http/openapi/response-headers.js'
import { NoQuery } from '../../http/openapi/schema-primitives.js'
import { BETA, BETA_NOTE } from '../../http/openapi/stability.js'
import type { Idempotency } from '../../idempotency/idempotent.js'
import { IdempotencyHeaders, ReplayedHeaderSchema } from '../../idempotency/idempotency.schema.js'
import { DeliveriesSchema, DeliveryParams, DeliverySchema, ListDeliveriesQuery } from './webhook-delivery.schema.js'
import { WebhookIdParams } from './webhook.schema.js'
import type { WebhookService } from './webhook.service.js'

export interface WebhookDeliveryRoutesOptions {
  webhooks: WebhookService
  /** The cursors of one webhook's deliveries. */
  cursors: (webhookId: number) => CursorCodec<DeliveryStatus>
  idempotency: Idempotency
  publicBaseUrl: string | undefined
  retryScheduleMs: readonly number[]
}

const SCOPE = { scope: 'webhooks:manage' } as const
const TAGS = ['Webhooks']

function describeSchedule(scheduleMs: readonly number[]): string {
  if (scheduleMs.length === 0) return 'A failed attempt is not retried'
  const delays = scheduleMs.map((ms) =>
    ms % 3_600_000 === 0
      ? `${ms / 3_600_000} h`
      : ms % 60_000 === 0
        ? `${ms / 60_000} min`
        : ms % 1000 === 0
          ? `${ms / 1000} s`
          : `${ms} ms`,
  )
  return `A failed attempt is retried after about ${delays.join(', ')} (±20 %), then the delivery is \`failed\``
}

export const webhookDeliveryRoutes: FastifyPluginAsyncTypebox<WebhookDeliveryRoutesOptions> = async (
  app,
  { webhooks, cursors, idempotency, publicBaseUrl, retryScheduleMs },
) => {
  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      config: SCOPE,
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: TAGS,
        summary: "[beta] List an endpoint's deliveries",
        description:
          `${BETA_NOTE}\n\nThe endpoint's deliveries, newest first, each with its attempts: outcome, response ` +
          'status, error, duration and the start of the response body. ' +
          `${describeSchedule(retryScheduleMs)}. When more exist, \`Link: <…>; rel="next"\` points at the next page.`,
        ...BETA,
        querystring: ListDeliveriesQuery,
        params: WebhookIdParams,
        response: {
          200: {
            ...DeliveriesSchema,
            description: 'A page of deliveries.',
            headers: { Link: NextPageLinkHeader },
          },
          ...errorResponses(...EVERY_OPERATION_ERRORS, 'not_found'),
        },
      },
    },
    async (request, reply) => {
      const { webhookId } = request.params
      const { limit = DEFAULT_PAGE_SIZE, status, cursor } = request.query
      const webhookCursors = cursors(webhookId)
      const page = await webhooks.deliveries(webhookId, {
        beforeId: cursor === undefined ? undefined : webhookCursors.decode(cursor, status),
        status,
        limit,
      })
      const link = nextPageLink(
        `${publicOrigin(request, publicBaseUrl)}${API_PREFIX}/webhooks/${webhookId}/deliveries`,
        page,
        (afterId) => ({
          limit: String(limit),
          ...(status ? { status } : {}),
          cursor: webhookCursors.encode({ afterId, status }),
        }),
      )
      if (link !== undefined) reply.header('link', link)
      return page.items
    },
  )

  app.post(
    '/webhooks/:webhookId/deliveries/:deliveryId/retry',
    {
      config: SCOPE,
      preValidation: refuseBody,
      schema: {
        operationId: 'retryWebhookDelivery',
        tags: TAGS,
        summary: '[beta] Retry a delivery now',
        description:
          `${BETA_NOTE}\n\nMakes the delivery due at once: a pending one is attempted now rather than at its ` +
          'scheduled time; a failed or succeeded one is sent again, ' +
          'with the same `webhook-id`. 409 while one of its attempts is in progress, and for a finished one whose ' +
          "event is no longer kept (`EVENT_RETENTION_DAYS`). A disabled endpoint's " +
          'delivery waits until the endpoint is enabled. No request body. Safe to retry with an ' +
          '`Idempotency-Key`.',
        ...BETA,
        querystring: NoQuery,
        headers: IdempotencyHeaders,
        params: DeliveryParams,
        response: {
          202: { ...DeliverySchema, description: 'The delivery, pending and due now.', headers: ReplayedHeaderSchema },
          ...errorResponses(...BODILESS_ACTION_ERRORS),
        },
      },
    },
    async (request, reply) =>
      idempotency.run(
        request,
        reply,
        (uow) => webhooks.retry(uow, request.params.webhookId, request.params.deliveryId),
        (delivery) => ({ status: 202, body: delivery }),
      ),
  )

  rejectOtherMethods(app, '/webhooks/:webhookId/deliveries', ['GET'])
  rejectOtherMethods(app, '/webhooks/:webhookId/deliveries/:deliveryId/retry', ['POST'])
}
