// The pets use cases: the only door from the routes to the pets in the store.
import type { DataAccess, InTransaction } from '../db/database.js'
import { NotFound } from '../domain/errors.js'
import type { Page } from '../http/pagination.js'
import { toPet } from './pet.mapper.js'
import type { PetReads } from './pet-reads.js'
import { insertPet, type PetPageQuery } from './pet.repository.js'
import { DEFAULT_PET_STATUS, type NewPet, type Pet } from './pet.schema.js'

export interface PetService {
  list(query: PetPageQuery): Promise<Page<Pet>>
  /** The pet; NotFound when there is none with this id. */
  get(id: number): Promise<Pet>
  /** Adds a pet; `inTransaction` commits with it, or neither does. */
  create(input: NewPet, inTransaction?: InTransaction<Pet>): Promise<Pet>
}

export interface PetServiceDependencies {
  data: DataAccess
  /** How pets are read: chosen by the composition root (cached, SQLite's own JSON, or the query builder). */
  reads: PetReads
}

export function createPetService({ data, reads }: PetServiceDependencies): PetService {
  return {
    list: (query) => reads.page(query),
    async get(id) {
      const pet = await reads.pet(id)
      if (!pet) throw new NotFound('pet', id)
      return pet
    },
    create(input, inTransaction) {
      return data.transaction(async (trx) => {
        // The HTTP contract fills the default before this; other callers get the same one.
        const row = await insertPet(trx, { name: input.name, category_id: input.categoryId, status: input.status ?? DEFAULT_PET_STATUS })
        const pet = toPet(row)
        await inTransaction?.(trx, pet)
        return pet
      })
    },
  }
}
