import type { Kysely } from 'kysely'

// Keys created before this migration keep every permission they had: all four scopes, no expiry. Written out
// here, not imported, because a migration must keep meaning what it meant when it was written.
const ALL_SCOPES = 'pets:read pets:write orders:read orders:write'

export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema
    .alterTable('api_keys')
    .addColumn('scopes', 'text', (column) => column.notNull().defaultTo(ALL_SCOPES))
    .execute()
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('expires_at').execute()
  await db.schema.alterTable('api_keys').dropColumn('scopes').execute()
}
