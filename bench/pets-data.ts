// The benchmark's pets, derived from their position alone, so the seeder, the baseline server and the
// checks all agree on what pet n looks like without sharing any state.

export type BenchPetStatus = 'available' | 'pending' | 'sold'

export interface BenchPet {
  id: number
  name: string
  categoryId: number
  status: BenchPetStatus
}

const NAMES = ['Rex', 'Bella', 'Max', 'Luna', 'Charlie', 'Daisy', 'Milo', 'Coco', 'Rocky', 'Nala']

/** 60 % available, 10 % pending, 30 % sold: the filtered scenario asks for the sparsest status. */
export function statusOf(position: number): BenchPetStatus {
  const slot = position % 10
  if (slot === 6) return 'pending'
  return slot >= 7 ? 'sold' : 'available'
}

export const FILTER_STATUS: BenchPetStatus = 'pending'

/** Pet number `position` (1-based); on a freshly migrated store it gets that same id. */
export function petAt(position: number): BenchPet {
  return {
    id: position,
    name: `${NAMES[position % NAMES.length] ?? 'Pet'} ${position}`,
    categoryId: (position % 50) + 1,
    status: statusOf(position),
  }
}

/** The body of a first page of 20: what the baseline server answers, precomputed once. */
export function firstPageBody(): string {
  return JSON.stringify(Array.from({ length: 20 }, (_, index) => petAt(index + 1)))
}

/** The body every create request sends (names may repeat; the service does not require them unique). */
export const CREATE_BODY = JSON.stringify({ name: 'Bench pet', categoryId: 7, status: 'available' })

/** RFC 7396's media type, as the update scenario sends it. */
export const MERGE_PATCH_TYPE = 'application/merge-patch+json'
