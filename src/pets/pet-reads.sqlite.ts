import type SqliteDatabase from 'better-sqlite3'
import { rowsToFetch } from '../http/pagination.js'
import { withJsonText } from '../http/json/prepared-json.js'
import type { VersionedPet } from './pet.mapper.js'
import type { PetPageQuery } from './pet.repository.js'
import type { PetReads } from './pet-reads.js'
import type { Pet } from './pet.schema.js'

// The API's Pet, made by SQLite: the same keys in the same order as toPet (pet.mapper.ts) and the response
// schema, so the text is what the route's serialiser would make of the parsed value.
const PET_JSON = `json_object('id', id, 'name', name, 'categoryId', category_id, 'status', status)`

/**
 * The pet reads as prepared statements on SQLite's read connection, the JSON made by SQLite: no query
 * building and no row objects. The text is parsed once into the value the service returns and kept as that
 * value's JSON (prepared-json.ts), so the response is not serialised again. Four page statements, one per
 * combination of the optional filters (status, category, cursor), each served by the primary key or the
 * (status, id), (category_id, id) or (category_id, status, id) index. Deleted pets are passed by, as in
 * pet.repository.ts.
 */
export function sqlitePetReads(reader: SqliteDatabase.Database): PetReads {
  const pet = reader
    .prepare<[number], [string, number]>(`select ${PET_JSON}, version from pets where id = ? and deleted_at is null`)
    .raw()
  const pageStatement = (...conditions: string[]) =>
    reader
      .prepare<unknown[], [string, number]>(
        `select ${PET_JSON}, id from pets where ${[...conditions, 'deleted_at is null'].join(' and ')} order by ` +
          'id limit ?',
      )
      .raw()
  // One statement per combination of filters, keyed by which are given: status, category, cursor.
  const statements = new Map<string, ReturnType<typeof pageStatement>>()
  for (const status of [false, true])
    for (const category of [false, true])
      for (const after of [false, true]) {
        const conditions = [
          ...(status ? ['status = ?'] : []),
          ...(category ? ['category_id = ?'] : []),
          ...(after ? ['id > ?'] : []),
        ]
        statements.set(`${status} ${category} ${after}`, pageStatement(...conditions))
      }
  const pageRows = ({ status, categoryId, afterId }: PetPageQuery, limit: number) => {
    const statement = statements.get(`${status !== undefined} ${categoryId !== undefined} ${afterId !== undefined}`)
    if (!statement) throw new Error('no page statement for these filters')
    const values = [status, categoryId, afterId].filter((value) => value !== undefined)
    return statement.all(...values, limit)
  }
  const parsed = <Value extends object>(text: string): Value => withJsonText(JSON.parse(text) as Value, text)

  return {
    async pet(id): Promise<VersionedPet | undefined> {
      const row = pet.get(id)
      return row === undefined ? undefined : { pet: parsed<Pet>(row[0]), version: row[1] }
    },
    async page(query) {
      const { limit } = query
      const rows = pageRows(query, rowsToFetch(limit))
      const shown = rows.length > limit ? rows.slice(0, limit) : rows
      return {
        items: parsed<Pet[]>(`[${shown.map(([json]) => json).join(',')}]`),
        nextAfterId: rows.length > limit ? shown.at(-1)?.[1] : undefined,
      }
    },
  }
}
