import type { OrderRow } from './order.repository.js'
import type { Order } from './order.schema.js'

/** The one place a database row becomes the API's Order; `complete` is derived, so it never disagrees with `status`. */
export function toOrder(row: OrderRow): Order {
  return {
    id: Number(row.id),
    petId: Number(row.pet_id),
    quantity: Number(row.quantity),
    shipDate: row.ship_date,
    complete: row.status === 'completed',
    status: row.status,
  }
}

/** An order's event data (order.placed, order.cancelled, order.completed): the order as the API shows it. */
export function toOrderEventData(order: Order): { order: Order } {
  return { order }
}
