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

/**
 * The name as the unique index compares it: composed (NFC) and case-folded here, in the service, so that both
 * stores compare the same text (SQLite's lower() folds ASCII only; PostgreSQL's follows the collation). Upper
 * then lower case folds what lower case alone leaves apart (`ß` and `SS`, `ς` and `σ`), and a second round folds
 * what the first one makes: capital `ẞ` becomes `ß` in it, which only the second makes `ss` like `SS` and `ß`
 * (after two rounds, no code point changes again).
 */
export function nameKey(name: string): string {
  return name.normalize('NFC').toUpperCase().toLowerCase().toUpperCase().toLowerCase()
}
