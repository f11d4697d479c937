import { sql, type Kysely } from 'kysely'
import { isPostgres } from './dialect-helpers.js'

// A category's ETag is "<id>.<version>". Versions used to start at 1 for every category created, so an id
// deleted and named again repeated the ETags of the category it had been: a client's cached copy answered 304,
// its If-Match held against a record it never saw. Now category_id_counter keeps a floor: a delete raises it to
// the deleted category's version, and every category created starts just above it, so an id never gets a
// version it had before. One column beside the id counter, whose row every category write locks anyway.
//
// The versions of categories deleted before this migration were not kept. Every create and rename of a category
// recorded one event in its own transaction, so no version ever reached exceeds the number of events ever
// recorded: at most the largest event id (kept or purged) plus, on PostgreSQL, the events still waiting for
// theirs. The floor starts there when any category was ever created (last_id above 0), at 0 otherwise.
// Written out here, not imported: a migration keeps meaning what it meant when it was written.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('category_id_counter')
    .addColumn('version_floor', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute()
  if (isPostgres(db)) {
    await sql`update category_id_counter set version_floor = greatest(
        (select coalesce(max(version), 0) from categories),
        (select coalesce(max(id), 0) from events),
        (select coalesce(max(purged_through), 0) from event_retention)
      ) + (select count(*) from event_inbox)
      where last_id > 0`.execute(db)
    return
  }
  await sql`update category_id_counter set version_floor = max(
      (select coalesce(max(version), 0) from categories),
      (select coalesce(max(id), 0) from events),
      (select coalesce(max(purged_through), 0) from event_retention)
    )
    where last_id > 0`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('category_id_counter').dropColumn('version_floor').execute()
}
