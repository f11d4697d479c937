import type SqliteDatabase from 'better-sqlite3'
import type { PetStatus } from './pet.repository.js'
import type { PetJsonReads } from './pet-json.js'

// The API's Pet, made by SQLite: the same keys in the same order as toPet (pet.mapper.ts), so the text is
// what JSON.stringify(toPet(row)) would give.
const PET_JSON = `json_object('id', id, 'name', name, 'categoryId', category_id, 'status', status)`

/**
 * The pet reads as prepared statements on SQLite's read connection, the JSON made by SQLite: no query
 * building, no row objects, no JSON.stringify. Four page statements, one per combination of the optional
 * filters, each served by the primary key or the (status, id) index.
 */
export function sqlitePetJson(reader: SqliteDatabase.Database): PetJsonReads {
  const pet = reader.prepare<[number], string>(`select ${PET_JSON} from pets where id = ?`).pluck()
  const pageStatement = (where: string) =>
    reader.prepare<unknown[], [string, number]>(`select ${PET_JSON}, id from pets ${where} order by id limit ?`).raw()
  const pages = {
    all: pageStatement(''),
    after: pageStatement('where id > ?'),
    status: pageStatement('where status = ?'),
    statusAfter: pageStatement('where status = ? and id > ?'),
  }
  const pageRows = (status: PetStatus | undefined, afterId: number | undefined, limit: number) => {
    if (status === undefined) return afterId === undefined ? pages.all.all(limit) : pages.after.all(afterId, limit)
    return afterId === undefined ? pages.status.all(status, limit) : pages.statusAfter.all(status, afterId, limit)
  }

  return {
    pet: async (id) => pet.get(id),
    async page({ status, afterId, limit }) {
      // One row more than asked tells whether a next page exists without a second query.
      const rows = pageRows(status, afterId, limit + 1)
      const shown = rows.length > limit ? rows.slice(0, limit) : rows
      return {
        json: `[${shown.map(([json]) => json).join(',')}]`,
        nextAfterId: rows.length > limit ? shown.at(-1)?.[1] : undefined,
      }
    },
  }
}
