// What a pet's maintenance needs of its orders: the port the orders feature implements
// (orders/orders-for-pets.ts), handed to the pet service by the composition (services.ts).
import type { Writer } from '../db/database.js'

export interface PetOrders {
  /** The id of the pet's placed order, as `trx` reads it, if it has one (it has at most one). */
  placedOrderOf(trx: Writer, petId: number): Promise<number | undefined>
}
