import { sql, type Kysely } from 'kysely'
import { isPostgres } from './dialect-helpers.js'

// The event log (events/): one row per change, written in the change's own transaction. Written out here, not
// imported, because a migration must keep meaning what it meant when it was written.
const TYPES = ['pet.created', 'pet.updated', 'pet.deleted', 'order.placed', 'order.cancelled', 'order.completed']
const FOUR_SCOPES = 'pets:read pets:write orders:read orders:write'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('events')
    // SQLite: AUTOINCREMENT, one writer at a time, so ids commit in order. PostgreSQL: no default; the id was
    // made from the writing transaction's id, so it was never reused either (0010_event_log replaced that).
    .addColumn('id', isPostgres(db) ? 'bigint' : 'integer', (column) =>
      isPostgres(db) ? column.primaryKey() : column.primaryKey().autoIncrement(),
    )
    .addColumn('type', 'text', (column) =>
      column.notNull().check(sql.raw(`type in (${TYPES.map((type) => `'${type}'`).join(', ')})`)),
    )
    // RFC 3339 UTC with milliseconds, as every instant in the schema: compares correctly as text.
    .addColumn('occurred_at', 'text', (column) => column.notNull())
    // The event's `data` as JSON text, exactly as the feed sends it.
    .addColumn('data', 'text', (column) => column.notNull())
    .execute()

  // How far the retention purge has deleted: every event with an id up to this one is gone. One row, always.
  await db.schema
    .createTable('event_retention')
    .addColumn('purged_through', 'bigint', (column) => column.notNull())
    .execute()
  await sql`insert into event_retention (purged_through) values (0)`.execute(db)

  // Keys that had every scope there was keep having every scope; a key limited to some keeps its limits.
  await sql`update api_keys set scopes = ${`${FOUR_SCOPES} events:read`} where scopes = ${FOUR_SCOPES}`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update api_keys set scopes = ${FOUR_SCOPES} where scopes = ${`${FOUR_SCOPES} events:read`}`.execute(db)
  await db.schema.dropTable('event_retention').execute()
  await db.schema.dropTable('events').execute()
}
