// How a column's values are written to the shop file and read back, whichever store they come from or go to.
// The stores keep the same value in different types (SQLite: integers and text; PostgreSQL: bigint, jsonb,
// timestamptz, boolean), so the file holds one neutral form per kind of column, and each store converts.
import type { MoveSession } from '../db/move-session.js'

export type ColumnKind = 'integer' | 'text' | 'json' | 'timestamp' | 'boolean'

export class DamagedFileError extends Error {}

/** A value read from the session's store, in the file's form. */
export function toFileValue(kind: ColumnKind, session: MoveSession, value: unknown): unknown {
  if (value === null || value === undefined) return null
  switch (kind) {
    case 'json':
      return session.jsonFromStore(value)
    case 'timestamp':
      return value instanceof Date ? value.toISOString() : value
    case 'boolean':
      return value === true || value === 1
    default:
      return value
  }
}

/** A value of the file, checked against its kind, in the form the session's store keeps. */
export function toStoreValue(kind: ColumnKind, session: MoveSession, value: unknown, where: string): unknown {
  if (value === null) return null
  switch (kind) {
    case 'integer':
      if (!Number.isSafeInteger(value)) throw new DamagedFileError(`the file is damaged: ${where} is not an integer`)
      return value
    case 'text':
    case 'timestamp':
      if (typeof value !== 'string') throw new DamagedFileError(`the file is damaged: ${where} is not text`)
      return value
    case 'json':
      // Stringified on both stores: pg would send a JavaScript array as a PostgreSQL array, not as JSON.
      return JSON.stringify(value)
    case 'boolean':
      if (typeof value !== 'boolean') throw new DamagedFileError(`the file is damaged: ${where} is not true or false`)
      return session.booleanToStore(value)
  }
}
