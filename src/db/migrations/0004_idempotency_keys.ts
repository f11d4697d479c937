import { sql, type Kysely } from 'kysely'

// Idempotency-Key records (IETF draft-ietf-httpapi-idempotency-key-header): one row per API key and
// Idempotency-Key, holding the request's fingerprint, whether it is still running, and the response to replay.
// Times are ISO 8601 UTC text, as elsewhere in the schema, so they compare correctly as text in both stores.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('api_key_id', 'text', (column) => column.notNull())
    .addColumn('idempotency_key', 'text', (column) => column.notNull())
    .addColumn('request_fingerprint', 'text', (column) => column.notNull())
    .addColumn('state', 'text', (column) => column.notNull().check(sql`state in ('in_flight', 'completed')`))
    .addColumn('lease_token', 'text', (column) => column.notNull())
    .addColumn('leased_until', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_headers', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['api_key_id', 'idempotency_key'])
    // A completed key always has the response it replays.
    .addCheckConstraint(
      'idempotency_keys_completed_has_response',
      sql`state <> 'completed' or (response_status is not null and response_body is not null)`,
    )
    .execute()
  // The purge deletes expired keys in batches, oldest first.
  await db.schema.createIndex('idempotency_keys_expires_at').on('idempotency_keys').column('expires_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute()
}
