// The orders' transitions in the reference model (shop-state.ts), as orders.md's state machine has them: placing
// makes an available pet pending; completing sells it, cancelling offers it again. Each writes the order's event,
// then the pet's pet.updated.
import { movePetForOrder, nextId } from './pet-model.js'
import { errorAnswer, notFound, type Answer, type Order, type ShopState } from './shop-state.js'

export interface NewOrder {
  petId: number
  quantity?: number
  /** An RFC 3339 date-time with an offset, as sent. */
  shipDate?: string
}

export function placeOrder(state: ShopState, input: NewOrder): Answer {
  const pet = state.pets.get(input.petId)
  if (pet === undefined || pet.deleted)
    return errorAnswer(404, 'not_found', `No pet has id ${input.petId}.`, {
      details: [{ path: 'body/petId', message: 'does not exist' }],
    })
  if (pet.value.status !== 'available')
    return errorAnswer(
      409,
      'conflict',
      `Pet ${input.petId} is ${pet.value.status}; only an available pet can be ordered.`,
    )
  const order: Order = {
    id: nextId(state.orders.keys()),
    petId: input.petId,
    quantity: input.quantity ?? 1,
    // Returned as the same instant in UTC with milliseconds.
    shipDate: input.shipDate === undefined ? null : new Date(input.shipDate).toISOString(),
    complete: false,
    status: 'placed',
  }
  state.orders.set(order.id, order)
  state.events.push({ type: 'order.placed', data: { order: { ...order } } })
  movePetForOrder(state, order.petId, 'pending')
  return { status: 201, body: { ...order }, location: `/v1/store/orders/${order.id}` }
}

const FINISHES = {
  cancel: { order: 'cancelled', pet: 'available', done: 'cancelled' },
  complete: { order: 'completed', pet: 'sold', done: 'completed' },
} as const

export function finishOrder(state: ShopState, id: number, action: keyof typeof FINISHES): Answer {
  const order = state.orders.get(id)
  if (order === undefined) return notFound('order', id)
  const finish = FINISHES[action]
  if (order.status !== 'placed')
    return errorAnswer(409, 'conflict', `Order ${id} is ${order.status}; only a placed order can be ${finish.done}.`)
  const finished: Order = { ...order, status: finish.order, complete: finish.order === 'completed' }
  state.orders.set(id, finished)
  state.events.push({ type: `order.${finish.order}`, data: { order: { ...finished } } })
  movePetForOrder(state, order.petId, finish.pet)
  return { status: 200, body: { ...finished } }
}

export function getOrder(state: ShopState, id: number): Answer {
  const order = state.orders.get(id)
  return order === undefined ? notFound('order', id) : { status: 200, body: { ...order } }
}
