import { batchPerTurn } from '../db/batch-per-turn.js'
import type { Reader } from '../db/database.js'
import { findPetsByIds } from '../db/postgres/pets-by-ids.js'
import { toVersionedPet, type VersionedPet } from './pet.mapper.js'
import { queryBuilderPetReads, type PetReads } from './pet-reads.js'

/**
 * PostgreSQL's pet reads: the gets by id of one event-loop turn as one query (batch-per-turn.ts), pages
 * through the query builder (a page is read once and then cached, see pet-reads.cached.ts).
 *
 * The batch selects exactly the pets findPetById would, for many ids at once (findPetsByIds, in
 * db/postgres/pets-by-ids.ts; test/db/postgres-data-version.test.ts compares them).
 */
export function postgresPetReads(db: Reader): PetReads {
  const { page } = queryBuilderPetReads(db)
  const pet = batchPerTurn(async (ids: number[]) => {
    const rows = await findPetsByIds(db, ids)
    return new Map<number, VersionedPet>(rows.map((row) => [Number(row.id), toVersionedPet(row)]))
  })
  return { pet, page }
}
