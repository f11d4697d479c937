// What the orders need of the animals they are placed on: the port the pets feature implements
// (pets/pets-for-orders.ts), handed to the order service by the composition (services.ts). Orders never read
// or write the pets table themselves.
import type { Writer } from '../db/database.js'

/** An animal's status, as orders move it. */
export type OrderedPetStatus = 'available' | 'pending' | 'sold'

export interface OrderedPets {
  /**
   * Moves the pet from `from` to `to` in `trx`, only if it is still `from` (of concurrent callers exactly one
   * succeeds): the data of its pet.updated event (the pet as it now is), or undefined when it did not move.
   */
  moveStatus(trx: Writer, petId: number, from: OrderedPetStatus, to: OrderedPetStatus): Promise<object | undefined>
  /** The pet's status as `trx` reads it; undefined when there is no such pet (or it was deleted). */
  statusOf(trx: Writer, petId: number): Promise<OrderedPetStatus | undefined>
}
