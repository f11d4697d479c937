// How a column's values are written to the shop file and read back, whichever store they come from or go to.
// The stores keep the same value in different types (SQLite: integers and text; PostgreSQL: bigint, jsonb,
// timestamptz, boolean), so the file holds one neutral form per kind of column, and each store converts.
import type { StoreDialect } from './session.js'

export type ColumnKind = 'integer' | 'text' | 'json' | 'timestamp' | 'boolean'

export class DamagedFileError extends Error {}

/** A value read from `dialect`, in the file's form. */
export function toFileValue(kind: ColumnKind, dialect: StoreDialect, value: unknown): unknown {
  if (value === null || value === undefined) return null
  switch (kind) {
    case 'json':
      // SQLite keeps JSON as text; PostgreSQL's jsonb arrives parsed.
      return typeof value === 'string' && dialect === 'sqlite' ? JSON.parse(value) : value
    case 'timestamp':
      return value instanceof Date ? value.toISOString() : value
    case 'boolean':
      return value === true || value === 1
    default:
      return value
  }
}

/** A value of the file, checked against its kind, in the form `dialect` stores. */
export function toStoreValue(kind: ColumnKind, dialect: StoreDialect, value: unknown, where: string): unknown {
  if (value === null) return null
  switch (kind) {
    case 'integer':
      if (!Number.isSafeInteger(value)) throw new DamagedFileError(`${where} is not an integer`)
      return value
    case 'text':
    case 'timestamp':
      if (typeof value !== 'string') throw new DamagedFileError(`${where} is not text`)
      return value
    case 'json':
      // Stringified on both stores: pg would send a JavaScript array as a PostgreSQL array, not as JSON.
      return JSON.stringify(value)
    case 'boolean':
      if (typeof value !== 'boolean') throw new DamagedFileError(`${where} is not true or false`)
      return dialect === 'sqlite' ? Number(value) : value
  }
}
