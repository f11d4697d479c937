import { batchPerTurn } from '../db/batch-per-turn.js'
import type { Reader } from '../db/database.js'
import type { ReadWithVersion } from '../db/postgres-data-version.js'
import type { VersionedValue } from '../db/versioned-cache.js'
import { pageOf, rowsToFetch, type Page } from '../http/pagination.js'
import { toPet, toVersionedPet, type VersionedPet } from './pet.mapper.js'
import { petPageQuery, petsByIdsQuery, type PetPageQuery } from './pet.repository.js'
import type { Pet } from './pet.schema.js'

/**
 * Pet reads that also tell, when asked to, the data version read just before their query
 * (VersionedCache.getFresh).
 */
export interface PetReadsWithVersion {
  pet(id: number, withVersion: boolean): Promise<VersionedValue<VersionedPet | undefined>>
  page(query: PetPageQuery): Promise<VersionedValue<Page<Pet>>>
}

/**
 * PostgreSQL's pet reads: the gets by id of one event-loop turn as one query (batch-per-turn.ts), pages
 * through the query builder, each query sent with the data version in one round trip
 * (postgres-data-version.ts), so that a cache needs no separate version read before a miss. A batch of gets
 * carries the version only when one of its callers asked for it: a pet a cache would not keep needs none.
 *
 * The batch selects exactly the pets findPetById would, for many ids at once (petsByIdsQuery, next to it in
 * pet.repository.ts; test/db/postgres-data-version.test.ts compares them).
 */
export function postgresPetReads(db: Reader, readWithVersion: ReadWithVersion): PetReadsWithVersion {
  // Built and compiled once: the ids are its one parameter (an array), so only that changes per batch.
  const byIds = petsByIdsQuery(db, []).compile()
  // The version goes with the batch when any of its callers asks for it (their ask marked, see batchPerTurn).
  const pet = batchPerTurn(async (ids: number[], withVersion) => {
    const query: typeof byIds = { ...byIds, parameters: [ids] }
    const { rows, version } = await readWithVersion(query, withVersion)
    const found = new Map(rows.map((row) => [Number(row.id), toVersionedPet(row)]))
    // Every id asked for gets the version (or none, when none was read), a missing one too: that it is missing
    // is worth keeping as well.
    return new Map(ids.map((id) => [id, { value: found.get(id), version }]))
  })
  return {
    async pet(id, withVersion) {
      const loaded = await pet(id, withVersion)
      if (!loaded) throw new Error(`the batch of pets answered nothing for id ${id}`)
      return loaded
    },
    async page(query) {
      const { rows, version } = await readWithVersion(
        petPageQuery(db, { ...query, limit: rowsToFetch(query.limit) }).compile(),
        true,
      )
      return { value: pageOf(rows, query.limit, toPet), version }
    },
  }
}
