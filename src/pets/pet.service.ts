// The pets use cases: the only door from the routes to the pets in the store.
import type { DataAccess, InTransaction, Writer } from '../db/database.js'
import { writeWith } from '../db/write.js'
import { NotFound } from '../domain/errors.js'
import type { VersionCondition } from '../domain/version-condition.js'
import type { Page } from '../http/pagination.js'
import { insertPetRecordingCreation } from './pet-create.js'
import { deletePetIn, updatePetIn } from './pet-maintenance.js'
import { toVersionedPet, type VersionedPet } from './pet.mapper.js'
import type { PetReads } from './pet-reads.js'
import type { PetPageQuery } from './pet.repository.js'
import { DEFAULT_PET_STATUS, type NewPet, type Pet, type PetPatch } from './pet.schema.js'

export type { VersionedPet }

export interface PetService {
  list(query: PetPageQuery): Promise<Page<Pet>>
  /** The pet and its version; NotFound when there is none with this id (or it was deleted). */
  get(id: number): Promise<VersionedPet>
  /** Adds a pet; `inTransaction` commits with it, or neither does. */
  create(input: NewPet, inTransaction?: InTransaction<VersionedPet>): Promise<VersionedPet>
  /**
   * Changes what the patch names, if `condition` holds for the pet's version (PreconditionFailed otherwise).
   * A status change is a Conflict while the pet has a placed order. A patch that changes nothing keeps the version.
   */
  update(
    id: number,
    patch: PetPatch,
    condition: VersionCondition | undefined,
    inTransaction?: InTransaction<VersionedPet>,
  ): Promise<VersionedPet>
  /** Deletes the pet, if `condition` holds; a Conflict while it has a placed order. Returns its last state. */
  delete(
    id: number,
    condition: VersionCondition | undefined,
    inTransaction?: InTransaction<VersionedPet>,
  ): Promise<VersionedPet>
}

export interface PetServiceDependencies {
  data: DataAccess
  /** How pets are read: chosen by the composition root (cached, SQLite's own JSON, or the query builder). */
  reads: PetReads
}

export function createPetService({ data, reads }: PetServiceDependencies): PetService {
  const write = (
    change: (trx: Writer) => Promise<VersionedPet>,
    inTransaction: InTransaction<VersionedPet> | undefined,
  ) => writeWith(data, change, inTransaction)
  return {
    list: (query) => reads.page(query),
    async get(id) {
      const found = await reads.pet(id)
      if (!found) throw new NotFound('pet', id)
      return found
    },
    // The HTTP contract fills the default status before this; other callers get the same one.
    create: (input, inTransaction) =>
      write(
        async (trx) =>
          toVersionedPet(
            await insertPetRecordingCreation(trx, {
              name: input.name,
              category_id: input.categoryId,
              status: input.status ?? DEFAULT_PET_STATUS,
            }),
          ),
        inTransaction,
      ),
    // Each writes its event (pet.updated, pet.deleted) in the same transaction as its change.
    update: (id, patch, condition, inTransaction) =>
      write((trx) => updatePetIn(trx, id, patch, condition), inTransaction),
    delete: (id, condition, inTransaction) => write((trx) => deletePetIn(trx, id, condition), inTransaction),
  }
}
