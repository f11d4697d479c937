// The pets use cases: the only door from the routes to the pets in the store.
import type { UnitOfWork } from '../db/unit-of-work.js'
import { NotFound } from '../domain/errors.js'
import type { VersionCondition } from '../domain/version-condition.js'
import type { Page } from '../http/pagination.js'
import { insertPetRecordingCreation } from './pet-create.js'
import { deletePetIn, updatePetIn } from './pet-maintenance.js'
import { toVersionedPet, type VersionedPet } from './pet.mapper.js'
import type { PetOrders } from './pet-orders.js'
import type { PetReads } from './pet-reads.js'
import type { PetPageQuery } from './pet.repository.js'
import { DEFAULT_PET_STATUS, type NewPet, type Pet, type PetPatch } from './pet.schema.js'

export type { VersionedPet }

export interface PetService {
  list(query: PetPageQuery): Promise<Page<Pet>>
  /** The pet and its version; NotFound when there is none with this id (or it was deleted). */
  get(id: number): Promise<VersionedPet>
  /** Adds a pet, and records its pet.created, in `uow`. */
  create(uow: UnitOfWork, input: NewPet): Promise<VersionedPet>
  /**
   * Changes what the patch names, if `condition` holds for the pet's version (PreconditionFailed otherwise).
   * A status change is a Conflict while the pet has a placed order. A patch that changes nothing keeps the version.
   */
  update(uow: UnitOfWork, id: number, patch: PetPatch, condition: VersionCondition | undefined): Promise<VersionedPet>
  /** Deletes the pet, if `condition` holds; a Conflict while it has a placed order. Returns its last state. */
  delete(uow: UnitOfWork, id: number, condition: VersionCondition | undefined): Promise<VersionedPet>
}

export interface PetServiceDependencies {
  /** How pets are read: chosen by the composition root (cached, SQLite's own JSON, or the query builder). */
  reads: PetReads
  /** The pets' orders (the orders feature's side, given by the composition): a placed order holds its pet. */
  orders: PetOrders
}

// Writes run in the caller's unit of work (db/unit-of-work.ts): it commits them, or rolls them back.
export function createPetService({ reads, orders }: PetServiceDependencies): PetService {
  return {
    list: (query) => reads.page(query),
    async get(id) {
      const found = await reads.pet(id)
      if (!found) throw new NotFound('pet', id)
      return found
    },
    // The HTTP contract fills the default status before this; other callers get the same one.
    create: async (uow, input) =>
      toVersionedPet(
        await insertPetRecordingCreation(uow, {
          name: input.name,
          category_id: input.categoryId,
          status: input.status ?? DEFAULT_PET_STATUS,
        }),
      ),
    // Each writes its event (pet.updated, pet.deleted) in the same transaction as its change.
    update: (uow, id, patch, condition) => updatePetIn(orders, uow, id, patch, condition),
    delete: (uow, id, condition) => deletePetIn(orders, uow, id, condition),
  }
}
