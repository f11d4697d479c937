// The shop file: line-delimited JSON. A header line, one line per row (and per id counter), and a closing line
// with the counts and the SHA-256 of every byte before it, so a damaged, truncated or edited file is refused.
import { migrations } from '../db/migrate.js'
import { DamagedFileError } from './columns.js'
import type { MoveSession } from '../db/move-session.js'

export const FORMAT_NAME = 'petstore-shop'
/** One higher whenever a file written now could not be read by an earlier version. */
export const FORMAT_VERSION = 1

/** The schema a file describes: the last migration of the petstore that wrote it. Names sort in order. */
export const SCHEMA_VERSION = Object.keys(migrations).at(-1) ?? ''

export interface Header {
  format: typeof FORMAT_NAME
  formatVersion: number
  schemaVersion: string
  sourceStore: MoveSession['name']
  exportedAt: string
}

/** A row of a table, or the counter behind a table's ids (the next id handed out is above it). */
export type ShopRecord = { table: string; row: Record<string, unknown> } | { table: string; counter: number }

export interface Closing {
  end: true
  /** Rows per table. */
  counts: Record<string, number>
  /** SHA-256, hex, of every byte of the file before this line. */
  sha256: string
}

export class NewerFileError extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function parseLine(line: string, what: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    throw new DamagedFileError(`the file is damaged: ${what} is not JSON`)
  }
  if (!isObject(value)) throw new DamagedFileError(`the file is damaged: ${what} is not a JSON object`)
  return value
}

export const NOT_AN_EXPORT = `the file is not a petstore export (its first line is not a ${FORMAT_NAME} header)`

export function parseHeader(line: string | undefined): Header {
  if (line === undefined) throw new DamagedFileError('the file is empty')
  // Some other file named by mistake (the database itself, a log): said as such, not as a damaged export.
  let header: Record<string, unknown>
  try {
    header = parseLine(line, 'the header line')
  } catch {
    throw new DamagedFileError(NOT_AN_EXPORT)
  }
  if (header.format !== FORMAT_NAME) throw new DamagedFileError(NOT_AN_EXPORT)
  const { formatVersion, schemaVersion, sourceStore, exportedAt } = header
  if (!Number.isSafeInteger(formatVersion) || typeof schemaVersion !== 'string')
    throw new DamagedFileError('the file is damaged: the header has no format or schema version')
  if ((formatVersion as number) > FORMAT_VERSION)
    throw new NewerFileError(
      `the file's format version ${String(formatVersion)} is newer than this petstore reads ` +
        `(${FORMAT_VERSION}): upgrade petstore`,
    )
  if (schemaVersion > SCHEMA_VERSION)
    throw new NewerFileError(
      `the file's schema ${schemaVersion} is newer than this petstore's (${SCHEMA_VERSION}): upgrade petstore`,
    )
  if ((sourceStore !== 'sqlite' && sourceStore !== 'postgres') || typeof exportedAt !== 'string')
    throw new DamagedFileError('the file is damaged: the header has no source store or time')
  return { format: FORMAT_NAME, formatVersion: formatVersion as number, schemaVersion, sourceStore, exportedAt }
}

/** A line after the header: a record, or the closing line. */
export function parseBody(line: string, lineNumber: number): ShopRecord | Closing {
  const value = parseLine(line, `line ${lineNumber}`)
  if (value.end === true) {
    if (!isObject(value.counts) || typeof value.sha256 !== 'string')
      throw new DamagedFileError('the file is damaged: the closing line has no counts or checksum')
    return { end: true, counts: value.counts as Record<string, number>, sha256: value.sha256 }
  }
  if (typeof value.table !== 'string')
    throw new DamagedFileError(`the file is damaged: line ${lineNumber} names no table`)
  if (isObject(value.row)) return { table: value.table, row: value.row }
  if (Number.isSafeInteger(value.counter)) return { table: value.table, counter: value.counter as number }
  throw new DamagedFileError(`the file is damaged: line ${lineNumber} is neither a row nor a counter`)
}
