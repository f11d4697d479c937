// The pets' side of an order: what the orders feature may do to an animal (its port, OrderedPets in
// orders/ordered-pets.ts, is handed this by services.ts). The one entry to the pets for another feature.
import type { Writer } from '../db/database.js'
import { toPet, toPetEventData } from './pet.mapper.js'
import { findPetById, transitionPetStatus, type PetStatus } from './pet.repository.js'

export const petsForOrders = {
  async moveStatus(trx: Writer, petId: number, from: PetStatus, to: PetStatus): Promise<object | undefined> {
    const pet = await transitionPetStatus(trx, petId, from, to)
    return pet && toPetEventData(toPet(pet))
  },
  async statusOf(trx: Writer, petId: number): Promise<PetStatus | undefined> {
    return (await findPetById(trx, petId))?.status
  },
}
