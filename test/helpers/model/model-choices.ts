// The random parts of the model's requests: which pet, category or order a request names, what it sends, and which
// If-Match it carries. Mostly things that exist, now and then something deleted or never made, and tags that hold,
// are stale, weak, listed among others or `*`.
import type { Random } from './seeded-random.js'
import { tagOf, type Pet, type ShopState } from './shop-state.js'

const PET_NAMES = ['Rex', 'Tom', 'Bella', 'Milo', 'Luna', 'Ödön', 'Zoë', '👩‍👧 Duo', 'Kiki']
const CATEGORY_NAMES = ['Dogs', 'Cats', 'Birds', 'Fish', 'Reptiles', 'Horses', 'Ants']
/** Names categories.md says fold to one (ß and SS and ẞ; ΐ and Ϊ with a combining acute; ᾷ and ᾼ͂). */
const FOLDED_ALIKE = ['Straße', 'STRASSE', 'STRAẞE', 'ΐ', 'Ϊ́', 'ᾷ', 'ᾼ͂']
export const PET_STATUSES: readonly Pet['status'][] = ['available', 'pending', 'sold']

export function petName(random: Random): string {
  return `${random.pick(PET_NAMES)} ${random.below(100)}`
}

/** A category name, or another spelling of one (upper or lower case, ß as SS) that names the same category. */
export function categoryName(random: Random): string {
  if (random.chance(0.15)) return random.pick(FOLDED_ALIKE)
  const name = random.pick(CATEGORY_NAMES)
  return random.pick([name, name, name.toUpperCase(), name.toLowerCase(), `${name} ${random.below(5)}`])
}

/** The largest id (2^53−1), which leaves POST /v1/categories no id to choose once an animal carries it. */
export const MAX_ID = 9007199254740991

/**
 * A categoryId for an animal: a category's id, a small id without a category, now and then a larger one, and
 * rarely the largest.
 */
export function categoryIdFor(state: ShopState, random: Random): number {
  if (random.chance(0.003)) return MAX_ID
  const categories = [...state.categories.keys()]
  if (categories.length > 0 && random.chance(0.6)) return random.pick(categories)
  return random.chance(0.9) ? 1 + random.below(12) : 20 + random.below(30)
}

/** An id among `ids` (pets deleted and orders finished included), or now and then one above every one of them. */
export function someId(ids: Iterable<number>, random: Random): number {
  const known = [...ids]
  if (known.length === 0 || random.chance(0.08)) return Math.max(0, ...known) + 1 + random.below(3)
  return random.pick(known)
}

/** The id of a pet not deleted when there is one, so that most changes have something to change. */
export function livePetId(state: ShopState, random: Random): number {
  const live = [...state.pets.values()].filter((pet) => !pet.deleted).map((pet) => pet.value.id)
  return live.length > 0 && random.chance(0.85) ? random.pick(live) : someId(state.pets.keys(), random)
}

/**
 * An If-Match for a resource `id` at `version` (undefined when it does not exist): none, its tag, a stale one,
 * `*`, its tag weak, its tag in a list, another resource's tag.
 */
export function ifMatchFor(id: number, version: number | undefined, random: Random): string | undefined {
  const known = version ?? 1
  return random.pick([
    undefined,
    undefined,
    undefined,
    tagOf(id, known),
    tagOf(id, known),
    tagOf(id, known),
    tagOf(id, known > 1 ? known - 1 : known + 1),
    '*',
    `W/${tagOf(id, known)}`,
    `"x", ${tagOf(id + 1000, known)}, ${tagOf(id, known)}`,
    tagOf(id + 1, known),
  ])
}

/** A merge patch of one to three properties, now and then one that changes nothing. */
export function petPatch(state: ShopState, id: number, random: Random): Partial<Omit<Pet, 'id'>> {
  const patch: Partial<Omit<Pet, 'id'>> = {}
  const current = state.pets.get(id)?.value
  while (Object.keys(patch).length === 0) {
    if (random.chance(0.5)) patch.name = current && random.chance(0.15) ? current.name : petName(random)
    if (random.chance(0.4)) patch.categoryId = categoryIdFor(state, random)
    if (random.chance(0.4)) patch.status = random.pick(PET_STATUSES)
  }
  return patch
}

export const headersOf = (entries: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(entries).filter((entry): entry is [string, string] => entry[1] !== undefined))
