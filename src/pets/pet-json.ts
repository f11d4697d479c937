import type { Db } from '../db/database.js'
import { toPet } from './pet.mapper.js'
import { findPetById, listPets, type PetPageQuery } from './pet.repository.js'

/** A page of pets as the API's JSON text, and what the next page's cursor needs. */
export interface PetPageJson {
  /** The JSON array of the page's pets. */
  json: string
  /** The id of the page's last pet, when more pets follow it; otherwise undefined. */
  nextAfterId: number | undefined
}

/**
 * The reads behind listPets and getPet, answered as JSON text: their results are only ever serialised (and
 * cached as text), so a store that can produce the JSON itself need not materialise rows as objects.
 */
export interface PetJsonReads {
  /** The pet with this id as JSON text, or undefined. */
  pet(id: number): Promise<string | undefined>
  /** Up to `limit` pets in ascending id order. */
  page(query: PetPageQuery): Promise<PetPageJson>
}

/** Through the query builder, rows mapped by toPet and serialised here: any store (PostgreSQL). */
export function queryBuilderPetJson(db: Db): PetJsonReads {
  return {
    async pet(id) {
      const row = await findPetById(db, id)
      return row ? JSON.stringify(toPet(row)) : undefined
    },
    async page({ limit, ...query }) {
      // One row more than asked tells whether a next page exists without a second query.
      const rows = await listPets(db, { ...query, limit: limit + 1 })
      const pets = rows.slice(0, limit).map(toPet)
      return { json: JSON.stringify(pets), nextAfterId: rows.length > limit ? pets.at(-1)?.id : undefined }
    },
  }
}
