import type { CategoryRow } from './category.repository.js'
import type { Category } from './category.schema.js'

/** A category and the version it is at: what the service answers, so that the HTTP layer can tag it (ETag). */
export interface VersionedCategory {
  category: Category
  version: number
}

/** The one place a database row becomes the API's Category. */
export function toCategory(row: CategoryRow): Category {
  return { id: Number(row.id), name: row.name }
}

/** A category's event data (category.created, category.updated, category.deleted): the category as the API shows it. */
export function toCategoryEventData(category: Category): { category: Category } {
  return { category }
}

export function toVersionedCategory(row: CategoryRow): VersionedCategory {
  return { category: toCategory(row), version: Number(row.version) }
}

/** One round of the fold: decomposed (NFD), upper and lower case twice, then composed (NFC) (see nameKey). */
function foldRound(text: string): string {
  return text.normalize('NFD').toUpperCase().toLowerCase().toUpperCase().toLowerCase().normalize('NFC')
}

/** More rounds than the fold ever needs (two reach the end on every letter and mark tried): a bound, not a tuning. */
const MAX_FOLD_ROUNDS = 4

/**
 * The name as the unique index compares it: case-folded and composed (NFC) here, in the service, so that both
 * stores compare the same text (SQLite's lower() folds ASCII only; PostgreSQL's follows the collation). Upper
 * then lower case folds what lower case alone leaves apart (`ß` and `SS`, `ς` and `σ`), and a second round folds
 * what the first one makes: capital `ẞ` becomes `ß` in it, which only the second makes `ss` like `SS` and `ß`.
 * Case mapping can also leave text that composes anew: `Ϊ` + combining acute lower-cases to `ϊ` + acute, which
 * is `ΐ`, and `ß` + acute upper-cases to `SS` + acute, which is `S` + `Ś`. So the round is repeated until the key
 * no longer changes, and names equal ignoring case get one key however case mapping spelled them. The round cases
 * the decomposed name (NFD) and composes the result: a composed letter whose capital has no composed form of its
 * own cases apart from its marks (`ᾼ` + perispomeni upper-cases to `Α`, `Ι`, perispomeni; `ᾷ` to `Α`,
 * perispomeni, `Ι`), where its decomposition cases as Unicode's canonical caseless match does.
 */
export function nameKey(name: string): string {
  let key = foldRound(name)
  for (let round = 1; round < MAX_FOLD_ROUNDS; round++) {
    const next = foldRound(key)
    if (next === key) break
    key = next
  }
  return key
}

/**
 * Whether `key` can be the key of a name kept, by an earlier fold, with another key beside a category holding
 * `key` (see refoldKeptKey): only the rounds added since make such pairs, and they change only text holding `ss`
 * (from a capital `ẞ`) or a combining mark (composed anew or reordered).
 */
export function mayBeRefoldedKey(key: string): boolean {
  return key.includes('ss') || /\p{M}/u.test(key.normalize('NFD'))
}
