// PostgreSQL's side of a move session (db/move-session.ts): one pg client of its own.
import { Kysely, PostgresAdapter, sql, type DialectAdapter } from 'kysely'
import type { Database } from '../database.js'
import { migrateInsideTransaction } from '../migrate.js'
import { CATEGORY_VERSION_BOUNDS, quoted, type MoveSession, type Row } from '../move-session.js'
import { CONNECT_TIMEOUT_MS, parseInt8 } from '../postgres.js'
import { WorkingSchemaPostgresDialect } from '../postgres-schema-introspector.js'
import { connectionUrl } from '../postgres-tls-preference.js'

/** The first key of the advisory lock imports take ('PSIM'); the second is the schema's. */
const IMPORT_LOCK = 1347635533

/** The key of Kysely's migration lock (its PostgresAdapter's), so that a petstore migrate beside the load waits. */
const MIGRATION_LOCK = '3853314791062309107'

/**
 * Kysely's migration lock inside the load's transaction: a transaction-level advisory lock, released by the
 * load's commit or rollback. Kysely's own is a session lock released by a statement after the migrations, and
 * that statement, after a migration failed (a table of another application in the way), failed in turn with
 * "current transaction is aborted" and took the place of the migration's error.
 */
class InsideLoadAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK)}::bigint)`.execute(db)
  }

  override async releaseMigrationLock(): Promise<void> {}
}

class InsideLoadDialect extends WorkingSchemaPostgresDialect {
  override createAdapter(): DialectAdapter {
    return new InsideLoadAdapter()
  }
}

export async function openPostgresMoveSession(url: string): Promise<MoveSession> {
  const { default: pg } = await import('pg')
  // A server that takes the connection and never answers fails the command instead of holding it.
  const connection = { connectionTimeoutMillis: CONNECT_TIMEOUT_MS }
  const client = new pg.Client({
    ...connection,
    connectionString: await connectionUrl(url, (asked) => new pg.Client({ ...connection, connectionString: asked })),
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === pg.types.builtins.INT8
          ? parseInt8
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  })
  await client.connect()
  const select = async (text: string, parameters: readonly unknown[]) =>
    (await client.query<Row>(text, [...parameters])).rows
  const run = async (text: string, parameters: readonly unknown[]) => {
    await client.query(text, [...parameters])
  }
  return {
    name: 'postgres',
    placeholder: (index) => `$${index}`,
    select,
    run,
    beginSnapshot: () => run('begin isolation level repeatable read read only', []),
    // Imports into one schema take turns: a second one started meanwhile waits for the first's commit and finds
    // its shop, instead of creating the schema's tables beside the first one's (refused by PostgreSQL's catalog
    // as "current transaction is aborted"). Released with the transaction.
    async beginLoad() {
      await run('begin', [])
      await run(`select pg_advisory_xact_lock(${IMPORT_LOCK}, hashtext(current_schema()))`, [])
    },
    // Kysely's PostgreSQL driver, given this one client as its whole pool (released to nothing, never ended).
    async migrateInsideLoad() {
      const lent = { query: client.query.bind(client), release: () => {} }
      const pool = { connect: async () => lent, end: async () => {} }
      return migrateInsideTransaction(new Kysely<Database>({ dialect: new InsideLoadDialect({ pool }) }))
    },
    jsonFromStore: (value) => value,
    booleanToStore: (value) => value,
    // PostgreSQL refuses a value for an identity column unless told the file's ids are to be kept.
    insertKeepingIds: ' overriding system value',
    async readCounter(table, column) {
      const [row] = await select(
        'select coalesce(pg_sequence_last_value(pg_get_serial_sequence($1, $2)::regclass), 0) as value',
        [quoted(table), column],
      )
      return typeof row?.value === 'number' ? row.value : 0
    },
    async setCounter(table, column, counter) {
      const largest = `coalesce(max(${quoted(column)}), 0)`
      await run(
        `select setval(pg_get_serial_sequence($1, $2), greatest($3::bigint, ${largest}, 1), ` +
          `greatest($3::bigint, ${largest}) > 0) from ${quoted(table)}`,
        [quoted(table), column, counter],
      )
    },
    // Few: the events of the last moments, which the numbering has not reached at the snapshot's instant.
    async waitingRows(table, columns, order) {
      return select(`select ${columns.map(quoted).join(', ')} from ${quoted(table)} order by ${order}`, [])
    },
    // The numbering already starts above max(id) and the mark (db/postgres/number-events.ts).
    continueEventIdsAfterRetentionMark: async () => undefined,
    // An event in event_inbox has no id yet; it will get one above every id handed out so far.
    setCategoryVersionFloorToEventBound: () =>
      run(
        `update category_id_counter set version_floor = greatest(${CATEGORY_VERSION_BOUNDS}) + ` +
          '(select count(*) from event_inbox) where last_id > 0',
        [],
      ),
    close: () => client.end(),
  }
}
