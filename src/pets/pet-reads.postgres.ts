import { batchPerTurn } from '../db/batch-per-turn.js'
import type { Reader } from '../db/database.js'
import { toPet } from './pet.mapper.js'
import { queryBuilderPetReads, type PetReads } from './pet-reads.js'
import type { Pet } from './pet.schema.js'

/**
 * PostgreSQL's pet reads: the gets by id of one event-loop turn as one query (batch-per-turn.ts), pages
 * through the query builder (a page is read once and then cached, see pet-reads.cached.ts).
 *
 * The batch must select exactly the pets findPetById (pet.repository.ts) would, for many ids at once: keep
 * their conditions the same (test/postgres-data-version.test.ts compares them).
 */
export function postgresPetReads(db: Reader): PetReads {
  const { page } = queryBuilderPetReads(db)
  const pet = batchPerTurn(async (ids: number[]) => {
    // `= any($1)`, one array parameter: the same statement text (prepared once) for any number of ids.
    const rows = await db.selectFrom('pets').selectAll().where((eb) => eb('id', '=', eb.fn.any(eb.val(ids)))).execute()
    return new Map<number, Pet>(rows.map((row) => [Number(row.id), toPet(row)]))
  })
  return { pet, page }
}
