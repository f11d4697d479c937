import { VersionedCache } from '../db/versioned-cache.js'
import type { Page } from '../http/pagination.js'
import type { VersionedPet } from './pet.mapper.js'
import type { PetReads } from './pet-reads.js'
import type { Pet } from './pet.schema.js'

/**
 * Pets and pages kept while nobody commits (see VersionedCache): repeated reads of an unchanged catalogue
 * cost neither a query nor serialisation, as the kept values keep their JSON text too.
 */
export function cachedPetReads(reads: PetReads, readVersion: () => Promise<number>): PetReads {
  const pages = new VersionedCache<Page<Pet>>(readVersion)
  const pets = new VersionedCache<VersionedPet | null>(readVersion)
  return {
    async pet(id) {
      return (await pets.get(String(id), async () => (await reads.pet(id)) ?? null)) ?? undefined
    },
    page(query) {
      const key = `${query.status ?? ''} ${query.categoryId ?? ''} ${query.afterId ?? ''} ${query.limit}`
      return pages.get(key, () => reads.page(query))
    },
  }
}
