import type SqliteDatabase from 'better-sqlite3'
import { sqlitePetJson } from '../db/sqlite/pet-json.js'
import { rowsToFetch } from '../http/pagination.js'
import { withJsonText } from '../http/json/prepared-json.js'
import type { VersionedPet } from './pet.mapper.js'
import type { PetReads } from './pet-reads.js'
import type { Pet } from './pet.schema.js'

/**
 * The pet reads as prepared statements on SQLite's read connection, the JSON made by SQLite
 * (db/sqlite/pet-json.ts). The text is parsed once into the value the service returns and kept as that value's
 * JSON (prepared-json.ts), so the response is not serialised again.
 */
export function sqlitePetReads(reader: SqliteDatabase.Database): PetReads {
  const statements = sqlitePetJson(reader)
  const parsed = <Value extends object>(text: string): Value => withJsonText(JSON.parse(text) as Value, text)

  return {
    async pet(id): Promise<VersionedPet | undefined> {
      const row = statements.pet(id)
      return row === undefined ? undefined : { pet: parsed<Pet>(row[0]), version: row[1] }
    },
    async page(query) {
      const { limit } = query
      const rows = statements.page(query, rowsToFetch(limit))
      const shown = rows.length > limit ? rows.slice(0, limit) : rows
      return {
        items: parsed<Pet[]>(`[${shown.map(([json]) => json).join(',')}]`),
        nextAfterId: rows.length > limit ? shown.at(-1)?.[1] : undefined,
      }
    },
  }
}
