// petstore export: one consistent snapshot of the whole shop, table after table, as a shop file (format.ts).
import type { DatabaseConfig } from '../config.js'
import { FORMAT_NAME, FORMAT_VERSION, SCHEMA_VERSION, type Closing, type Header } from './format.js'
import { openMoveSession, type MoveSession } from '../db/move-session.js'
import { describeDatabase, explainingDatabaseErrors } from '../db/database-errors.js'
import { beginSnapshot, readCounter, tablePages } from './snapshot.js'
import { TABLES } from './tables.js'
import { exportTarget, shopFileWriter } from './writer.js'

export interface MoveProgress {
  /** Rows done so far, in `table`. */
  rows(table: string, count: number): void
  done(): void
}

/**
 * The snapshot's schema must be this petstore's: the file says which schema its rows follow, and a newer database
 * has columns and tables this version would leave out without a word.
 */
async function refuseOtherSchema(session: MoveSession, database: DatabaseConfig): Promise<void> {
  let rows
  try {
    rows = await session.select('select max(name) as name from kysely_migration', [])
  } catch (error) {
    // SQLite's "no such table", PostgreSQL's undefined_table: a database petstore never migrated (or another's).
    const { code, message } = error as { code?: unknown; message?: unknown }
    if (code !== '42P01' && !String(message).startsWith('no such table')) throw error
    throw new Error(
      `the ${describeDatabase(database)} holds no petstore schema: nothing to export (is DATABASE_URL right? ` +
        'a database not migrated yet needs petstore migrate first)',
      { cause: error },
    )
  }
  const [row] = rows
  const schema = typeof row?.name === 'string' ? row.name : '(none)'
  if (schema > SCHEMA_VERSION)
    throw new Error(
      `the database's schema ${schema} is newer than this petstore's (${SCHEMA_VERSION}): export with the ` +
        'petstore that migrated it',
    )
  if (schema < SCHEMA_VERSION)
    throw new Error(
      `the database's schema ${schema} is older than this petstore's (${SCHEMA_VERSION}): run petstore migrate first`,
    )
}

export async function exportShop(
  database: DatabaseConfig,
  target: string,
  progress: MoveProgress,
  signal?: AbortSignal,
): Promise<Record<string, number>> {
  const where = exportTarget(target)
  const session = await explainingDatabaseErrors(database, () => openMoveSession(database))
  const writer = shopFileWriter(where, signal)
  try {
    await beginSnapshot(session)
    await refuseOtherSchema(session, database)
    const exportedAt = new Date().toISOString()
    const header: Header = {
      format: FORMAT_NAME,
      formatVersion: FORMAT_VERSION,
      schemaVersion: SCHEMA_VERSION,
      sourceStore: session.name,
      exportedAt,
    }
    await writer.write(`${JSON.stringify(header)}\n`)
    const counts: Record<string, number> = {}
    for (const table of TABLES) {
      let count = 0
      for await (const rows of tablePages(session, table, exportedAt)) {
        let lines = ''
        for (const row of rows) lines += `${JSON.stringify({ table: table.name, row })}\n`
        await writer.write(lines)
        count += rows.length
        progress.rows(table.name, count)
      }
      counts[table.name] = count
      if (table.counter) {
        const counter = await readCounter(session, table, table.counter)
        await writer.write(`${JSON.stringify({ table: table.name, counter })}\n`)
      }
    }
    await session.run('commit', [])
    await writer.close((sha256) => `${JSON.stringify({ end: true, counts, sha256 } satisfies Closing)}\n`)
    progress.done()
    return counts
  } catch (error) {
    await writer.abandon()
    throw error
  } finally {
    await session.close()
  }
}
