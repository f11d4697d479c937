// PostgreSQL: many pets by id in one statement (`= any($1)`: one statement text for any number of ids), for
// the gets of one event-loop turn (pets/pet-reads.postgres.ts).
import type { Selectable } from 'kysely'
import type { PetTable, Reader } from '../database.js'

/** The pets findPetById (pets/pet.repository.ts) would give for each of `ids`: deleted ones are passed by. */
export async function findPetsByIds(db: Reader, ids: readonly number[]): Promise<Selectable<PetTable>[]> {
  return db
    .selectFrom('pets')
    .selectAll()
    .where((eb) => eb('id', '=', eb.fn.any(eb.val([...ids]))))
    .where('deleted_at', 'is', null)
    .execute()
}
