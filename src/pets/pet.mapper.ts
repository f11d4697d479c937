import type { Pet } from './pet.schema.js'
import type { PetRow } from './pet.repository.js'

/** A pet and the version it is at: what the service answers, so that the HTTP layer can tag it (ETag). */
export interface VersionedPet {
  pet: Pet
  version: number
}

/** The one place a database row becomes the API's Pet. */
export function toPet(row: PetRow): Pet {
  return { id: Number(row.id), name: row.name, categoryId: Number(row.category_id), status: row.status }
}

export function toVersionedPet(row: PetRow): VersionedPet {
  return { pet: toPet(row), version: Number(row.version) }
}
