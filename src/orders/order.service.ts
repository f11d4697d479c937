// The order lifecycle and the animal's status moving with it, as transactions. Each transition is a
// conditional update inside a transaction (`… where status = 'placed'`), so that of several concurrent
// requests, from any number of processes, exactly one wins; the others find the state changed and answer 409.
// No in-process lock is involved: correctness rests on the database alone. Each function runs inside the
// caller's transaction (DataAccess.transaction), so that other writes, such as the stored response of an
// idempotent request, commit together with the transition or not at all.
import type { DbTransaction } from '../db/database.js'
import { ApiError } from '../http/errors.js'
import { findPetById, transitionPetStatus, type PetStatus } from '../pets/pet.repository.js'
import { findOrderById, insertOrder, transitionOrderStatus, type OrderRow, type OrderStatus } from './order.repository.js'

export interface PlaceOrderInput {
  petId: number
  quantity: number
  /** Already normalised to UTC. */
  shipDate: string | null
}

/** Places an order for an available pet and makes the pet pending, both or neither (throwing rolls back). */
export async function placeOrder(trx: DbTransaction, input: PlaceOrderInput): Promise<OrderRow> {
  if (!(await transitionPetStatus(trx, input.petId, 'available', 'pending'))) {
    const pet = await findPetById(trx, input.petId)
    if (!pet) {
      throw new ApiError('not_found', `No pet has id ${input.petId}.`, { details: [{ path: 'body/petId', message: 'does not exist' }] })
    }
    throw new ApiError('conflict', `Pet ${input.petId} is ${pet.status}; only an available pet can be ordered.`)
  }
  return insertOrder(trx, { pet_id: input.petId, quantity: input.quantity, ship_date: input.shipDate, status: 'placed' })
}

const FINISHES = {
  cancel: { order: 'cancelled', pet: 'available', done: 'cancelled' },
  complete: { order: 'completed', pet: 'sold', done: 'completed' },
} as const satisfies Record<string, { order: OrderStatus; pet: PetStatus; done: string }>

/** Ends a placed order: `cancel` returns the pet to available, `complete` sells it. */
export async function finishOrder(trx: DbTransaction, orderId: number, action: keyof typeof FINISHES): Promise<OrderRow> {
  const finish = FINISHES[action]
  const row = await transitionOrderStatus(trx, orderId, 'placed', finish.order)
  if (!row) {
    const current = await findOrderById(trx, orderId)
    if (!current) throw new ApiError('not_found', `No order has id ${orderId}.`)
    throw new ApiError('conflict', `Order ${orderId} is ${current.status}; only a placed order can be ${finish.done}.`)
  }
  // A placed order always has a pending pet; if not, the data was changed outside the service, and the
  // transaction is rolled back (500) rather than making the inconsistency worse.
  if (!(await transitionPetStatus(trx, Number(row.pet_id), 'pending', finish.pet))) {
    throw new Error(`order ${orderId} is placed but pet ${row.pet_id} is not pending`)
  }
  return row
}
