import { Type, type Static } from 'typebox'
import { documentedAs, named } from '../http/openapi/openapi-names.js'
import { CursorParameter, MAX_PAGE_SIZE, pageLimit } from '../http/pagination.js'
import { Int64Id } from '../http/openapi/schema-primitives.js'

const ORDER_STATUSES = ['placed', 'completed', 'cancelled'] as const
const MAX_ORDER_QUANTITY = 100
export const DEFAULT_ORDER_QUANTITY = 1

/** The lifecycle, stated once for every description that needs it. */
export const STATE_MACHINE =
  'An order is `placed` on an `available` animal, which becomes `pending`. A placed order is then either ' +
  'completed (order `completed`, animal `sold`) or cancelled (order `cancelled`, animal `available` again); both ' +
  'are final. Any other transition answers 409 `conflict` and changes nothing.'

const OrderStatusSchema = named(
  'OrderStatus',
  Type.Unsafe<(typeof ORDER_STATUSES)[number]>({
    type: 'string',
    enum: [...ORDER_STATUSES],
    description:
      'Where the order is in its lifecycle: `placed` (open; the animal is `pending`), `completed` (the animal is ' +
      '`sold`) or `cancelled` (the animal was returned to `available`). `completed` and `cancelled` are final.',
    examples: ['placed'],
  }),
)

const Quantity = Type.Integer({ format: 'int32', minimum: 1, maximum: MAX_ORDER_QUANTITY })

const SHIP_DATE_RULES =
  'An RFC 3339 date-time with an explicit offset (`Z` or `±hh:mm`) and at most millisecond precision, e.g. ' +
  '`2026-05-01T10:00:00+02:00`; impossible dates (`2026-02-30`), leap seconds and instants outside years ' +
  '0000–9999 are refused. Stored and returned as the same instant in UTC with milliseconds ' +
  '(`2026-05-01T08:00:00.000Z`).'

// The longest RFC 3339 date-time the service reads: milliseconds and a numeric offset
// (`2026-05-01T10:00:00.000+02:00`).
// The format check refuses anything longer, so the document states the bound outright.
const MAX_SHIP_DATE_LENGTH = 29
const ShipDate = Type.String({
  format: 'date-time',
  description: `Requested ship date. ${SHIP_DATE_RULES}`,
  examples: ['2026-05-01T10:00:00+02:00'],
})

const NewOrderQuantity = {
  ...Quantity,
  description: `Number of units, 1 to ${MAX_ORDER_QUANTITY}; ${DEFAULT_ORDER_QUANTITY} when omitted.`,
  examples: [1],
}

export const NewOrderSchema = named(
  'NewOrder',
  Type.Object(
    {
      petId: {
        ...Int64Id,
        description:
          'The animal to order (1 to 2^53−1). It must exist (404 otherwise) and be `available` (409 otherwise).',
        examples: [12],
      },
      // Validation fills in the default; the document states it as `x-default` (generators make a property with a
      // `default` required), which the breaking-change gate compares.
      quantity: Type.Optional(
        documentedAs(
          { ...NewOrderQuantity, default: DEFAULT_ORDER_QUANTITY },
          { ...NewOrderQuantity, 'x-default': DEFAULT_ORDER_QUANTITY },
        ),
      ),
      shipDate: Type.Optional(documentedAs(ShipDate, { ...ShipDate, maxLength: MAX_SHIP_DATE_LENGTH })),
    },
    {
      additionalProperties: false,
      description:
        'An order to place. Properties not listed here (`id`, `status` and `complete` included) are refused.',
      examples: [{ petId: 12, quantity: 1, shipDate: '2026-05-01T10:00:00+02:00' }],
    },
  ),
)

const ORDER_EXAMPLE = {
  id: 7,
  petId: 12,
  quantity: 1,
  shipDate: '2026-05-01T08:00:00.000Z',
  complete: false,
  status: 'placed',
}

/** The example order after each way out of `placed`: the answers of cancelOrder and completeOrder show these. */
export const FINISHED_ORDER_EXAMPLES = {
  cancelled: { ...ORDER_EXAMPLE, status: 'cancelled' },
  completed: { ...ORDER_EXAMPLE, complete: true, status: 'completed' },
}

/**
 * A response: open to additive change (no additionalProperties: false); the serialiser still sends exactly these
 * properties.
 */
export const OrderSchema = named(
  'Order',
  Type.Object(
    {
      id: {
        ...Int64Id,
        description: 'Unique identifier assigned by the service (1 to 2^53−1); never reused.',
        examples: [7],
      },
      petId: {
        ...Int64Id,
        description:
          'The ordered animal: one that existed when the order was placed. An animal with a placed order cannot ' +
          'be deleted; one deleted after its order was completed or cancelled keeps its id here.',
        examples: [12],
      },
      quantity: { ...Quantity, description: `Number of units, 1 to ${MAX_ORDER_QUANTITY}.`, examples: [1] },
      shipDate: Type.Unsafe<string | null>({
        type: ['string', 'null'],
        format: 'date-time',
        maxLength: 24,
        description:
          'Requested ship date as an RFC 3339 instant in UTC with milliseconds, or null when none was given.',
        examples: ['2026-05-01T08:00:00.000Z'],
      }),
      complete: Type.Boolean({ description: 'True exactly when `status` is `completed`.' }),
      status: OrderStatusSchema,
    },
    { description: `An order for one animal. ${STATE_MACHINE}`, examples: [ORDER_EXAMPLE] },
  ),
)

export const OrdersSchema = named(
  'Orders',
  Type.Array(OrderSchema, {
    maxItems: MAX_PAGE_SIZE,
    description: 'A page of orders in ascending id order.',
    examples: [
      [
        ORDER_EXAMPLE,
        { ...ORDER_EXAMPLE, id: 8, petId: 15, quantity: 2, shipDate: null, complete: true, status: 'completed' },
      ],
    ],
  }),
)

export const ListOrdersQuery = Type.Object(
  {
    limit: pageLimit('orders'),
    cursor: Type.Optional(CursorParameter('Cursors of `GET /pets` are not accepted here.')),
  },
  { additionalProperties: false },
)

export const OrderIdParams = Type.Object(
  { orderId: { ...Int64Id, description: 'The identifier of the order (1 to 2^53−1).', examples: [7] } },
  { additionalProperties: false },
)

export type Order = Static<typeof OrderSchema>
