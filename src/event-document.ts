// The Event schema of the feed, the stream and webhook deliveries, composed once from what each feature
// records (its `<name>.events.ts`): the event log itself knows no resource.
import { eventSchemas } from './events/event.schema.js'
import { CATEGORY_EVENTS } from './categories/category.events.js'
import { ORDER_EVENTS } from './orders/order.events.js'
import { PET_EVENTS } from './pets/pet.events.js'

/** The examples of the Event and Events schemas: a pet created, then an order placed for it. */
const EXAMPLES = [
  {
    id: 4711,
    type: 'pet.created' as const,
    timestamp: '2026-05-01T08:00:00.000Z',
    data: { pet: { id: 12, name: 'Rex', categoryId: 3, status: 'available' } },
  },
  {
    id: 4712,
    type: 'order.placed' as const,
    timestamp: '2026-05-01T08:00:01.250Z',
    data: { order: { id: 7, petId: 12, quantity: 1, shipDate: null, complete: false, status: 'placed' } },
  },
]

export const { EventSchema, EventsSchema } = eventSchemas([PET_EVENTS, ORDER_EVENTS, CATEGORY_EVENTS], EXAMPLES)
