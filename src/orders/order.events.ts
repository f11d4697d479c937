// The orders' events in the feed's contract: what their `data` holds (the composition builds the Event schema).
import { Type } from 'typebox'
import type { EventDataContribution } from '../events/event.schema.js'
import { named } from '../http/openapi/openapi-names.js'
import { OrderSchema } from './order.schema.js'

const OrderEventDataSchema = named(
  'OrderEventData',
  Type.Object(
    { order: OrderSchema },
    {
      description: 'For `order.*`: the order after the change.',
      examples: [{ order: { id: 7, petId: 12, quantity: 1, shipDate: null, complete: false, status: 'placed' } }],
    },
  ),
)

export const ORDER_EVENTS: EventDataContribution = {
  types: ['order.placed', 'order.cancelled', 'order.completed'],
  data: OrderEventDataSchema,
}
