import type { Reader } from '../db/database.js'
import { pageOf, rowsToFetch, type Page } from '../http/pagination.js'
import { toPet, toVersionedPet, type VersionedPet } from './pet.mapper.js'
import { findPetById, listPets, type PetPageQuery } from './pet.repository.js'
import type { Pet } from './pet.schema.js'

/**
 * The reads behind listPets and getPet; deleted pets are never among them. A store may answer them its own way
 * (pet-reads.sqlite.ts).
 */
export interface PetReads {
  pet(id: number): Promise<VersionedPet | undefined>
  /** Up to `limit` pets in ascending id order. */
  page(query: PetPageQuery): Promise<Page<Pet>>
}

/** Through the query builder, rows mapped by toPet: any store (PostgreSQL). */
export function queryBuilderPetReads(db: Reader): PetReads {
  return {
    async pet(id) {
      const row = await findPetById(db, id)
      return row && toVersionedPet(row)
    },
    async page(query) {
      const rows = await listPets(db, { ...query, limit: rowsToFetch(query.limit) })
      return pageOf(rows, query.limit, toPet)
    },
  }
}
