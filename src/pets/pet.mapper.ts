import type { Pet } from './pet.schema.js'
import type { PetRow } from './pet.repository.js'

/** The one place a database row becomes the API's Pet. */
export function toPet(row: PetRow): Pet {
  return { id: Number(row.id), name: row.name, categoryId: Number(row.category_id), status: row.status }
}
