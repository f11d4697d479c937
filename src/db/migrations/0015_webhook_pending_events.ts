import { sql, type Kysely } from 'kysely'

// The event retention purge keeps the events that pending deliveries still need (a retry waits hours; a disabled
// endpoint's deliveries wait until it is enabled again): it asks for the smallest event id of a pending delivery
// before each batch. This index answers that with one probe, and stays small: only pending deliveries are in it.
// Written out here, not imported: a migration keeps meaning what it meant when it was written.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_pending_event')
    .ifNotExists()
    .on('webhook_deliveries')
    .column('event_id')
    .where(sql.ref('status'), '=', 'pending')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_pending_event').ifExists().execute()
}
