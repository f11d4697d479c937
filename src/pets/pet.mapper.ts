import type { DataAroundId } from '../db/insert-with-event.js'
import type { Pet } from './pet.schema.js'
import type { NewPetRow, PetRow } from './pet.repository.js'

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

/** A pet's event data (pet.created, pet.updated, pet.deleted): the pet as the API shows it. */
export function toPetEventData(pet: Pet): { pet: Pet } {
  return { pet }
}

/** What a pet's id is written as before the database gave it one: cut out of the JSON, then spliced in. */
const ID_TO_COME = 0
const BEFORE_ID = '{"pet":{"id":'

/**
 * The event data of a pet about to be inserted, as JSON text cut where its id goes (the database writes the
 * id's digits between the halves): the same bytes as JSON.stringify(toPetEventData(pet)) once inserted.
 */
export function toPetEventDataAroundId(row: NewPetRow): DataAroundId {
  const json = JSON.stringify(toPetEventData(toPet({ ...row, id: ID_TO_COME, version: 1, deleted_at: null })))
  const withPlaceholder = `${BEFORE_ID}${ID_TO_COME},`
  if (!json.startsWith(withPlaceholder)) throw new Error(`a pet's JSON no longer starts with its id: ${json}`)
  return { beforeId: BEFORE_ID, afterId: json.slice(withPlaceholder.length - 1) }
}
