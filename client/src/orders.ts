// The store: list, page through, place, read, cancel and complete orders.
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
import type { ListOrdersQuery, NewOrder, Order } from './schemas.js'

export interface OrdersApi {
  /** One page of orders in ascending id order; pass `nextCursor` for the next. */
  list(query?: ListOrdersQuery, options?: CallOptions): Promise<Page<Order>>
  /** Every order, page after page: `for await (const order of client.orders.listAll())`. */
  listAll(query?: Omit<ListOrdersQuery, 'cursor'>, options?: CallOptions): AsyncGenerator<Order, void, undefined>
  /** [beta] Orders an available animal (it becomes `pending`); safe to retry (an Idempotency-Key is sent). */
  place(order: NewOrder, options?: WriteOptions): Promise<Order>
  /** [beta] Reads one order. */
  get(orderId: number, options?: CallOptions): Promise<Order>
  /**
   * [beta] Cancels a placed order (its animal becomes `available` again); safe to retry (an Idempotency-Key is sent).
   */
  cancel(orderId: number, options?: WriteOptions): Promise<Order>
  /** [beta] Completes a placed order (its animal becomes `sold`); safe to retry (an Idempotency-Key is sent). */
  complete(orderId: number, options?: WriteOptions): Promise<Order>
}

export function ordersApi({ api, transport }: Context): OrdersApi {
  const list = async (query: ListOrdersQuery = {}, { signal }: CallOptions = {}): Promise<Page<Order>> => {
    const answer = await api.GET('/store/orders', {
      params: { query },
      signal,
      fetch: transport.fetchFor({ operationId: 'listOrders' }),
    })
    return { items: dataOf(answer), nextCursor: nextLinkParameter(answer.response.headers, 'cursor') }
  }
  const get = async (orderId: number, { signal }: CallOptions = {}): Promise<Order> =>
    dataOf(
      await api.GET('/store/orders/{orderId}', {
        params: { path: { orderId } },
        signal,
        fetch: transport.fetchFor({ operationId: 'getOrder' }),
      }),
    )
  return {
    list,
    listAll: (query = {}, options = {}) =>
      everyItem((cursor) => list({ ...query, ...(cursor === undefined ? {} : { cursor }) }, options)),
    async place(order, { signal, idempotencyKey = newIdempotencyKey() } = {}) {
      return dataOf(
        await api.POST('/store/orders', {
          params: { header: { 'Idempotency-Key': idempotencyKey } },
          body: order,
          signal,
          fetch: transport.fetchFor({ operationId: 'placeOrder' }),
        }),
      )
    },
    get,
    async cancel(orderId, { signal, idempotencyKey = newIdempotencyKey() } = {}) {
      return dataOf(
        await api.DELETE('/store/orders/{orderId}', {
          params: { path: { orderId }, header: { 'Idempotency-Key': idempotencyKey } },
          signal,
          fetch: transport.fetchFor({ operationId: 'cancelOrder' }),
        }),
      )
    },
    async complete(orderId, { signal, idempotencyKey = newIdempotencyKey() } = {}) {
      return dataOf(
        await api.POST('/store/orders/{orderId}/complete', {
          params: { path: { orderId }, header: { 'Idempotency-Key': idempotencyKey } },
          signal,
          fetch: transport.fetchFor({ operationId: 'completeOrder' }),
        }),
      )
    },
  }
}
