// petstore import: a shop file into an empty database of either store, migrated and loaded in one transaction.
// Whatever goes wrong (a held shop, a damaged file, a foreign secret key) rolls it back: nothing changes.
import { rm, rmdir } from 'node:fs/promises'
import type { Config } from '../config.js'
import { refoldCategoryKeys } from './category-name-keys.js'
import { setVersionFloorOfEarlierFile } from './category-version-floor.js'
import { DamagedFileError } from './columns.js'
import { SCHEMA_VERSION } from './format.js'
import type { MoveProgress } from './export.js'
import { TableLoader, setCounter } from './loader.js'
import { openShopFile } from './reader.js'
import { ForeignSecretError, SecretCheck } from './secret-check.js'
import { explainingDatabaseErrors } from '../db/database-errors.js'
import { importPlace, openMoveSession, quoted, type MoveSession, type Row } from '../db/move-session.js'
import { TABLES, findTable, type TableEntry } from './tables.js'

export class HeldShopError extends Error {}

/**
 * A path through a file (DATABASE_URL=file:shop.jsonl/petstore.db) can hold no file to remove: rm's ENOTDIR would
 * otherwise take the place of the reason the import failed, which names the path the operator gave.
 */
function unlessNoPlaceForIt(error: unknown): void {
  if ((error as { code?: unknown }).code !== 'ENOTDIR') throw error
}

/** A second row of a table of one row (a counter, the retention mark): no export writes one. */
class SecondRowError extends Error {}

async function refuseHeldShop(session: MoveSession): Promise<void> {
  for (const table of TABLES) {
    if (table.replaced) continue
    const rows = await session.select(`select 1 as found from ${quoted(table.name)} limit 1`, [])
    if (rows.length > 0)
      throw new HeldShopError(
        `the target database already holds a shop (${table.name} has rows): import into an empty one`,
      )
  }
}

/**
 * A database a newer petstore migrated has columns and tables this one does not fill, and its migrations did not
 * bring the file's rows to its schema: the load would fail on a column of its own, blamed on the file, or succeed
 * with rows in an older form than the schema says. Refused as the export refuses such a database.
 */
function refuseNewerSchema(newer: readonly string[]): void {
  const schema = newer.at(-1)
  if (schema === undefined) return
  throw new Error(
    `the database's schema ${schema} is newer than this petstore's (${SCHEMA_VERSION}): import with the ` +
      'petstore that migrated it',
  )
}

type ShopFile = Awaited<ReturnType<typeof openShopFile>>
type Records = ReturnType<ShopFile['records']>

/**
 * A row the database refuses (a reference to a row not loaded yet) comes of a file whose lines were moved or
 * edited, more often than not: the rest of the file is read to its checksum first, so that such a file is refused
 * as damaged, and the database's own reason is given only for a file that is what it says.
 */
async function load(session: MoveSession, file: ShopFile, config: Config, progress: MoveProgress) {
  const records = file.records()
  try {
    const counts = await loadRecords(session, records, file.header.schemaVersion, config, progress)
    // The file's events, retention mark and waiting events are in place: the floor's bound counts them.
    await setVersionFloorOfEarlierFile(session, file.header.schemaVersion)
    await refoldCategoryKeys(session, file.header.schemaVersion)
    return counts
  } catch (error) {
    if (error instanceof DamagedFileError || error instanceof ForeignSecretError) throw error
    for (let next = await records.next(); next.done !== true; next = await records.next());
    // The file is what its checksum says, yet its rows break a rule no export breaks: it was made or edited by
    // hand, and checksummed again.
    if (breaksAConstraint(error) || error instanceof SecondRowError)
      throw new Error(`the file's rows break a rule of the shop, so it was edited after its export: ${error.message}`, {
        cause: error,
      })
    throw error
  }
}

/** A unique, foreign-key, not-null or check constraint of either store refused a row. */
function breaksAConstraint(error: unknown): error is Error {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && (code.startsWith('SQLITE_CONSTRAINT') || /^23\d{3}$/.test(code))
}

async function loadRecords(
  session: MoveSession,
  records: Records,
  fileSchema: string,
  config: Config,
  progress: MoveProgress,
) {
  const secrets = new SecretCheck(config.webhookSecretKey)
  const loaders = new Map<string, TableLoader>()
  // Set once the whole file is checked: PostgreSQL's sequences do not roll back with a refused transaction.
  const counters: [TableEntry, number][] = []
  // Rows the source had not given their key yet (events waiting for their id): inserted last, once every id they
  // must come above is in place. The retention mark is loaded after the events, and SQLite hands such a row its id
  // as it is inserted: before the mark, an event would take an id at or below it, which no follower ever reads.
  const waiting: [TableEntry, Row][] = []
  for (;;) {
    const next = await records.next()
    if (next.done === true) {
      for (const loader of loaders.values()) await loader.flush()
      const counts = Object.fromEntries([...loaders].map(([name, loader]) => [name, loader.count]))
      for (const [table] of waiting) counts[table.name] = (counts[table.name] ?? 0) + 1
      for (const [name, count] of Object.entries(next.value.counts))
        if ((counts[name] ?? 0) !== count)
          throw new DamagedFileError(`the file is damaged: ${name} has not the rows its count says`)
      for (const [table, counter] of counters) await setCounter(session, table, counter)
      await session.continueEventIdsAfterRetentionMark()
      const late = new Map<TableEntry, TableLoader>()
      for (const [table, row] of waiting) {
        const loader = late.get(table) ?? new TableLoader(session, table, fileSchema)
        late.set(table, loader)
        await loader.add(row)
      }
      for (const loader of late.values()) await loader.flush()
      return counts
    }
    const record = next.value
    const table = findTable(record.table)
    if (!table) throw new DamagedFileError(`the file is damaged: no table ${JSON.stringify(record.table)} in this shop`)
    let loader = loaders.get(table.name)
    if (!loader) {
      // A new table: the previous one's last batch goes first (the order of the file is the order of references).
      for (const previous of loaders.values()) await previous.flush()
      // Only a table the file holds: a file of a schema before the table (category_id_counter before 0011) keeps
      // the row the migration made, which the service needs.
      if (table.replaced) await session.run(`delete from ${quoted(table.name)}`, [])
      loader = new TableLoader(session, table, fileSchema)
      loaders.set(table.name, loader)
    }
    if ('counter' in record) {
      counters.push([table, record.counter])
      continue
    }
    const [key] = table.key
    if (table.waiting && key !== undefined && record.row[key] === null) {
      waiting.push([table, record.row])
      continue
    }
    // The service reads and updates such a table as one row: a second one would split it in two.
    if (table.key.length === 0 && loader.count > 0) throw new SecondRowError(`${table.name} has more than its one row`)
    if (table.name === 'service_secrets') secrets.serviceSecret(record.row)
    if (table.name === 'webhook_endpoints') secrets.endpoint(record.row)
    if (table.name === 'idempotency_keys') secrets.storedResponse(record.row)
    await loader.add(record.row)
    if (loader.count % 10_000 === 0) progress.rows(table.name, loader.count)
  }
}

export async function importShop(
  config: Config,
  sourcePath: string,
  progress: MoveProgress,
  signal?: AbortSignal,
): Promise<Record<string, number>> {
  const source = await openShopFile(sourcePath, signal)
  const { database } = config
  const place = importPlace(database)
  let session: MoveSession | undefined
  let committed = false
  let published = false
  try {
    const opened = await explainingDatabaseErrors(database, () => openMoveSession(place.database, { create: true }))
    session = opened
    // Taking the write lock waits for another writer (another import) as long as SQLite's busy timeout.
    const { newer } = await explainingDatabaseErrors(database, async () => {
      await opened.beginLoad()
      return opened.migrateInsideLoad()
    })
    refuseNewerSchema(newer)
    await refuseHeldShop(session)
    const counts = await load(session, source, config, progress)
    await session.run('commit', [])
    committed = true
    const closing = session
    session = undefined
    await closing.close()
    place.publish()
    published = true
    progress.done()
    return counts
  } finally {
    source.close()
    if (session && !committed) await session.run('rollback', []).catch(() => {})
    await session?.close()
    // A database file this import created holds nothing but the schema: gone with the refusal, as it was.
    if (!published) {
      for (const file of place.files) await rm(file, { force: true }).catch(unlessNoPlaceForIt)
      // Only if empty: anything else in them is not the import's.
      for (const directory of place.directories) await rmdir(directory).catch(() => {})
    }
  }
}
