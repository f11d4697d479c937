import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { CursorCodec } from '../http/cursor.js'
import { normaliseDateTime } from '../http/date-time.js'
import {
  BODILESS_ACTION_ERRORS,
  BODY_ERRORS,
  errorResponses,
  EVERY_OPERATION_ERRORS,
  IDEMPOTENCY_ERRORS,
} from '../http/errors/error.schema.js'
import { rejectOtherMethods } from '../http/errors/method-not-allowed.js'
import { DEFAULT_PAGE_SIZE, nextPageLink } from '../http/pagination.js'
import { API_PREFIX } from '../http/paths.js'
import { publicOrigin } from '../http/request/public-origin.js'
import { LocationHeader, NextPageLinkHeader } from '../http/openapi/response-headers.js'
import { refuseBody } from '../http/json/refuse-body.js'
import { BETA, BETA_NOTE } from '../http/openapi/stability.js'
import type { Idempotency } from '../idempotency/idempotent.js'
import { IdempotencyHeaders, ReplayedHeaderSchema } from '../idempotency/idempotency.schema.js'
import { NoQuery } from '../http/openapi/schema-primitives.js'
import {
  ListOrdersQuery,
  NewOrderSchema,
  OrderIdParams,
  OrderSchema,
  FINISHED_ORDER_EXAMPLES,
  OrdersSchema,
  STATE_MACHINE,
} from './order.schema.js'
import type { OrderService } from './order.service.js'

export interface OrderRoutesOptions {
  orders: OrderService
  /** Issued with their own scope: a cursor of `GET /pets` is not accepted here, nor the reverse. */
  cursors: CursorCodec
  idempotency: Idempotency
  publicBaseUrl: string | undefined
}

export const orderRoutes: FastifyPluginAsyncTypebox<OrderRoutesOptions> = async (
  app,
  { orders, cursors, idempotency, publicBaseUrl },
) => {
  app.get(
    '/store/orders',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listOrders',
        tags: ['Store'],
        summary: 'List orders',
        description:
          'Orders in ascending id order, cancelled and completed ones included. When more exist, `Link: <…>; ' +
          'rel="next"` points at the next page.',
        querystring: ListOrdersQuery,
        response: {
          200: {
            ...OrdersSchema,
            description: 'A page of orders.',
            headers: { Link: NextPageLinkHeader },
          },
          ...errorResponses(...EVERY_OPERATION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { limit = DEFAULT_PAGE_SIZE, cursor } = request.query
      const afterId = cursor === undefined ? undefined : cursors.decode(cursor, undefined)
      const page = await orders.list({ afterId, limit })
      const link = nextPageLink(
        `${publicOrigin(request, publicBaseUrl)}${API_PREFIX}/store/orders`,
        page,
        (nextAfterId) => ({
          limit: String(limit),
          cursor: cursors.encode({ afterId: nextAfterId, status: undefined }),
        }),
      )
      if (link !== undefined) reply.header('link', link)
      return page.items
    },
  )

  app.post(
    '/store/orders',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'placeOrder',
        tags: ['Store'],
        summary: '[beta] Place an order for an animal',
        description:
          `${BETA_NOTE}\n\nOrders an \`available\` animal and makes it \`pending\`, in one transaction. When ` +
          'several clients order the same animal at once, exactly one order is placed; the others get 409. ' +
          `${STATE_MACHINE}`,
        ...BETA,
        querystring: NoQuery,
        headers: IdempotencyHeaders,
        body: NewOrderSchema,
        response: {
          201: {
            ...OrderSchema,
            description: 'The order as stored: `placed`, not complete.',
            headers: { Location: LocationHeader, ...ReplayedHeaderSchema },
          },
          ...errorResponses(...EVERY_OPERATION_ERRORS, 'not_found', 'conflict', ...IDEMPOTENCY_ERRORS, ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { petId, quantity, shipDate } = request.body
      // Worked out first: a Host header that cannot make a URL must be refused before the order is placed, not after.
      const origin = publicOrigin(request, publicBaseUrl)
      const input = { petId, quantity, shipDate: shipDate === undefined ? null : (normaliseDateTime(shipDate) ?? null) }
      return idempotency.run(
        request,
        reply,
        (uow) => orders.place(uow, input),
        (order) => ({
          status: 201,
          body: order,
          headers: { location: `${origin}${API_PREFIX}/store/orders/${order.id}` },
        }),
      )
    },
  )

  app.get(
    '/store/orders/:orderId',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getOrder',
        tags: ['Store'],
        summary: '[beta] Get an order',
        description: `${BETA_NOTE}\n\nThe order in its current state; cancelled and completed orders stay readable.`,
        ...BETA,
        querystring: NoQuery,
        params: OrderIdParams,
        response: {
          200: { ...OrderSchema, description: 'The order.' },
          ...errorResponses(...EVERY_OPERATION_ERRORS, 'not_found'),
        },
      },
    },
    async (request) => orders.get(request.params.orderId),
  )

  app.delete(
    '/store/orders/:orderId',
    {
      config: { scope: 'orders:write' },
      preValidation: refuseBody,
      schema: {
        operationId: 'cancelOrder',
        tags: ['Store'],
        summary: '[beta] Cancel an order',
        description:
          `${BETA_NOTE}\n\nCancels a \`placed\` order and returns its animal to \`available\`, in one transaction. ` +
          `The order is kept with status \`cancelled\` (it stays readable and listed). A completed or already ` +
          'cancelled order answers 409 and nothing changes. No request body.',
        ...BETA,
        querystring: NoQuery,
        headers: IdempotencyHeaders,
        params: OrderIdParams,
        response: {
          200: {
            ...OrderSchema,
            description: 'The order, now `cancelled`.',
            examples: [FINISHED_ORDER_EXAMPLES.cancelled],
            headers: ReplayedHeaderSchema,
          },
          ...errorResponses(...BODILESS_ACTION_ERRORS),
        },
      },
    },
    async (request, reply) =>
      idempotency.run(
        request,
        reply,
        (uow) => orders.cancel(uow, request.params.orderId),
        (order) => ({ status: 200, body: order }),
      ),
  )

  app.post(
    '/store/orders/:orderId/complete',
    {
      config: { scope: 'orders:write' },
      preValidation: refuseBody,
      schema: {
        operationId: 'completeOrder',
        tags: ['Store'],
        summary: '[beta] Complete an order',
        description:
          `${BETA_NOTE}\n\nCompletes a \`placed\` order (\`complete: true\`) and marks its animal \`sold\`, in one ` +
          'transaction. A cancelled or already completed order answers 409 and nothing changes. No request body.',
        ...BETA,
        querystring: NoQuery,
        headers: IdempotencyHeaders,
        params: OrderIdParams,
        response: {
          200: {
            ...OrderSchema,
            description: 'The order, now `completed`.',
            examples: [FINISHED_ORDER_EXAMPLES.completed],
            headers: ReplayedHeaderSchema,
          },
          ...errorResponses(...BODILESS_ACTION_ERRORS),
        },
      },
    },
    async (request, reply) =>
      idempotency.run(
        request,
        reply,
        (uow) => orders.complete(uow, request.params.orderId),
        (order) => ({ status: 200, body: order }),
      ),
  )

  rejectOtherMethods(app, '/store/orders', ['GET', 'POST'])
  rejectOtherMethods(app, '/store/orders/:orderId', ['GET', 'DELETE'])
  rejectOtherMethods(app, '/store/orders/:orderId/complete', ['POST'])
}
