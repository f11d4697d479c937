// SQLite: the pets as JSON text SQLite makes itself, as prepared statements on the read connection (the pets'
// fastest read path, pets/pet-reads.sqlite.ts): no query building and no row objects. Four page statements, one
// per combination of the optional filters (status, category, cursor), each served by the primary key or the
// (status, id), (category_id, id) or (category_id, status, id) index. Deleted pets are passed by, as in
// pets/pet.repository.ts.
import type SqliteDatabase from 'better-sqlite3'
import type { PetTable } from '../database.js'

// The API's Pet: the same keys in the same order as toPet (pets/pet.mapper.ts) and the response schema, so the
// text is what the route's serialiser would make of the parsed value (test/pets/pet-json.once.test.ts compares them).
const PET_JSON = `json_object('id', id, 'name', name, 'categoryId', category_id, 'status', status)`

export interface PetJsonFilters {
  status: PetTable['status'] | undefined
  categoryId?: number | undefined
  /** Only pets with a greater id: the keyset cursor. */
  afterId: number | undefined
}

export interface PetJsonStatements {
  /** The pet's JSON text and version; undefined when there is none with this id (or it was deleted). */
  pet(id: number): [json: string, version: number] | undefined
  /** At most `limit` pets that pass the filters, ascending by id: each one's JSON text and id. */
  page(filters: PetJsonFilters, limit: number): [json: string, id: number][]
}

export function sqlitePetJson(reader: SqliteDatabase.Database): PetJsonStatements {
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
  return {
    pet: (id) => pet.get(id),
    page({ status, categoryId, afterId }, limit) {
      const statement = statements.get(`${status !== undefined} ${categoryId !== undefined} ${afterId !== undefined}`)
      if (!statement) throw new Error('no page statement for these filters')
      const values = [status, categoryId, afterId].filter((value) => value !== undefined)
      return statement.all(...values, limit)
    },
  }
}
