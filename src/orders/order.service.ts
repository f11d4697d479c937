// The order lifecycle and the animal's status moving with it, as transactions. Each transition is a
// conditional update inside a transaction (`… where status = 'placed'`), so that of several concurrent
// requests, from any number of processes, exactly one wins; the others find the state changed and get a
// Conflict. No in-process lock is involved: correctness rests on the database alone. Each runs in the caller's
// unit of work (db/unit-of-work.ts), with whatever else the caller adds to it (an idempotent request's answer).
import type { DataAccess, EventType, Writer } from '../db/database.js'
import type { UnitOfWork } from '../db/unit-of-work.js'
import { Conflict, Contended, DOMAIN_MESSAGES, NotFound } from '../domain/errors.js'
import { recordEvent } from '../events/event-log.js'
import { pageOf, rowsToFetch, type Page } from '../http/pagination.js'
import { toOrder, toOrderEventData } from './order.mapper.js'
import {
  findOrderById,
  insertOrder,
  listOrders,
  transitionOrderStatus,
  type OrderPageQuery,
  type OrderStatus,
} from './order.repository.js'
import { DEFAULT_ORDER_QUANTITY, type Order } from './order.schema.js'
import type { OrderedPets, OrderedPetStatus } from './ordered-pets.js'

export interface PlaceOrderInput {
  petId: number
  quantity?: number
  /** Already normalised to UTC, or null. */
  shipDate: string | null
}

export interface OrderService {
  list(query: OrderPageQuery): Promise<Page<Order>>
  /** The order; NotFound when there is none with this id. */
  get(id: number): Promise<Order>
  /** Places an order for an available pet and makes the pet pending, both or neither. */
  place(uow: UnitOfWork, input: PlaceOrderInput): Promise<Order>
  /** Ends a placed order and returns its pet to available. */
  cancel(uow: UnitOfWork, id: number): Promise<Order>
  /** Ends a placed order and sells its pet. */
  complete(uow: UnitOfWork, id: number): Promise<Order>
}

const FINISHES = {
  cancel: { order: 'cancelled', pet: 'available', done: 'cancelled', event: 'order.cancelled' },
  complete: { order: 'completed', pet: 'sold', done: 'completed', event: 'order.completed' },
} as const satisfies Record<
  string,
  { order: OrderStatus; pet: OrderedPetStatus; done: string; event: Extract<EventType, `order.${string}`> }
>

/**
 * Rounds of "move the pet, else read why not". On PostgreSQL (read committed) the move skips a pet that is not
 * available in its snapshot, without waiting for a transaction changing it; if that one made it available (a
 * cancel) before the read, the move is tried again, so that the order is decided on the pet as it now is.
 */
const PLACE_ATTEMPTS = 10

/** Makes the pet pending if it is available: the data of its pet.updated event; NotFound or Conflict otherwise. */
async function takePet(pets: OrderedPets, trx: Writer, petId: number): Promise<object> {
  for (let attempt = 0; attempt < PLACE_ATTEMPTS; attempt++) {
    const pet = await pets.moveStatus(trx, petId, 'available', 'pending')
    if (pet) return pet
    const current = await pets.statusOf(trx, petId)
    if (!current) throw new NotFound('pet', petId, 'petId')
    if (current !== 'available') throw new Conflict(DOMAIN_MESSAGES.petNotAvailable(petId, current))
  }
  throw new Contended(petId, PLACE_ATTEMPTS)
}

async function placeIn(pets: OrderedPets, uow: UnitOfWork, input: PlaceOrderInput): Promise<Order> {
  const { trx } = uow
  const pet = await takePet(pets, trx, input.petId)
  // The HTTP contract fills the default quantity before this; other callers get the same one.
  const quantity = input.quantity ?? DEFAULT_ORDER_QUANTITY
  const order = toOrder(
    await insertOrder(trx, { pet_id: input.petId, quantity, ship_date: input.shipDate, status: 'placed' }),
  )
  await recordEvent(uow, 'order.placed', toOrderEventData(order))
  await recordEvent(uow, 'pet.updated', pet)
  return order
}

async function finishIn(
  pets: OrderedPets,
  uow: UnitOfWork,
  orderId: number,
  action: keyof typeof FINISHES,
): Promise<Order> {
  const { trx } = uow
  const finish = FINISHES[action]
  const row = await transitionOrderStatus(trx, orderId, 'placed', finish.order)
  if (!row) {
    const current = await findOrderById(trx, orderId)
    if (!current) throw new NotFound('order', orderId)
    throw new Conflict(`Order ${orderId} is ${current.status}; only a placed order can be ${finish.done}.`)
  }
  // A placed order always has a pending pet; if not, the data was changed outside the service, and the
  // transaction is rolled back (500) rather than making the inconsistency worse.
  const pet = await pets.moveStatus(trx, Number(row.pet_id), 'pending', finish.pet)
  if (!pet) throw new Error(`order ${orderId} is placed but pet ${row.pet_id} is not pending`)
  const order = toOrder(row)
  await recordEvent(uow, finish.event, toOrderEventData(order))
  await recordEvent(uow, 'pet.updated', pet)
  return order
}

/** `pets`: the animals the orders move (the pets feature's side, given by the composition). */
export function createOrderService(data: DataAccess, pets: OrderedPets): OrderService {
  return {
    async list(query) {
      return pageOf(await listOrders(data.read, { ...query, limit: rowsToFetch(query.limit) }), query.limit, toOrder)
    },
    async get(id) {
      const row = await findOrderById(data.read, id)
      if (!row) throw new NotFound('order', id)
      return toOrder(row)
    },
    place: (uow, input) => placeIn(pets, uow, input),
    cancel: (uow, id) => finishIn(pets, uow, id, 'cancel'),
    complete: (uow, id) => finishIn(pets, uow, id, 'complete'),
  }
}
