import { Type, type Static } from 'typebox'
import { pageLimit } from '../http/pagination.js'
import { Int64Id } from '../http/schema-primitives.js'

export const ORDER_STATUSES = ['placed', 'completed', 'cancelled'] as const
export const MAX_ORDER_QUANTITY = 100
export const DEFAULT_ORDER_QUANTITY = 1

/** The lifecycle, stated once for every description that needs it. */
export const STATE_MACHINE =
  'An order is `placed` on an `available` animal, which becomes `pending`. A placed order is then either ' +
  'completed (order `completed`, animal `sold`) or cancelled (order `cancelled`, animal `available` again); both are final. ' +
  'Any other transition answers 409 `conflict` and changes nothing.'

export const OrderStatusSchema = Type.Unsafe<(typeof ORDER_STATUSES)[number]>({
  type: 'string',
  enum: [...ORDER_STATUSES],
  description:
    'Where the order is in its lifecycle: `placed` (open; the animal is `pending`), `completed` (the animal is `sold`) or `cancelled` (the animal was returned to `available`). `completed` and `cancelled` are final.',
})

const Quantity = Type.Integer({ format: 'int32', minimum: 1, maximum: MAX_ORDER_QUANTITY })

const SHIP_DATE_RULES =
  'An RFC 3339 date-time with an explicit offset (`Z` or `±hh:mm`) and at most millisecond precision, ' +
  'e.g. `2026-05-01T10:00:00+02:00`; impossible dates (`2026-02-30`), leap seconds and instants outside years 0000–9999 are refused. ' +
  'Stored and returned as the same instant in UTC with milliseconds (`2026-05-01T08:00:00.000Z`).'

export const NewOrderSchema = Type.Object(
  {
    petId: {
      ...Int64Id,
      description:
        'The animal to order (1 to 2^53−1). It must exist (404 otherwise) and be `available` (409 otherwise).',
    },
    quantity: Type.Optional({
      ...Quantity,
      default: DEFAULT_ORDER_QUANTITY,
      description: `Number of units, 1 to ${MAX_ORDER_QUANTITY}; ${DEFAULT_ORDER_QUANTITY} when omitted.`,
    }),
    shipDate: Type.Optional(
      Type.String({ format: 'date-time', description: `Requested ship date. ${SHIP_DATE_RULES}` }),
    ),
  },
  {
    additionalProperties: false,
    description: 'An order to place. Properties not listed here (`id`, `status` and `complete` included) are refused.',
  },
)

export const OrderSchema = Type.Object(
  {
    id: { ...Int64Id, description: 'Unique identifier assigned by the service (1 to 2^53−1); never reused.' },
    petId: {
      ...Int64Id,
      description:
        'The ordered animal: one that existed when the order was placed. An animal with a placed order cannot be deleted; one deleted after its order was completed or cancelled keeps its id here.',
    },
    quantity: { ...Quantity, description: `Number of units, 1 to ${MAX_ORDER_QUANTITY}.` },
    shipDate: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date-time',
      description: 'Requested ship date as an RFC 3339 instant in UTC with milliseconds, or null when none was given.',
    }),
    complete: Type.Boolean({ description: 'True exactly when `status` is `completed`.' }),
    status: OrderStatusSchema,
  },
  { additionalProperties: false, description: `An order for one animal. ${STATE_MACHINE}` },
)

export const OrdersSchema = Type.Array(OrderSchema, { description: 'A page of orders in ascending id order.' })

export const ListOrdersQuery = Type.Object(
  {
    limit: pageLimit('orders'),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          'Opaque position from a previous page\'s `Link: rel="next"`. Cursors of `GET /pets` are not accepted here.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const OrderIdParams = Type.Object(
  { orderId: { ...Int64Id, description: 'The identifier of the order (1 to 2^53−1).' } },
  { additionalProperties: false },
)

export type Order = Static<typeof OrderSchema>
