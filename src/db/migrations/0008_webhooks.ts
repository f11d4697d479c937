import { sql, type Kysely } from 'kysely'
import { idColumn, idType, isPostgres } from './dialect-helpers.js'

// Webhooks (webhooks/): endpoints, their deliveries (one per event and endpoint) and the log of each delivery's
// attempts. Written out here, not imported, because a migration must keep meaning what it meant when it was written.
const FIVE_SCOPES = 'pets:read pets:write orders:read orders:write events:read'

// The fan-out: every event an enabled endpoint subscribes to gets a pending delivery, inserted by the event's
// own insert, in its transaction. So a committed event always has its deliveries (none can be dropped between
// the commit and some later step, on any instance, whoever wrote the event) and a rolled-back one never has; it
// costs the writer no extra statement, and nothing held in an instance's memory decides who receives what.
// A delivery is due from the event's time on (epoch milliseconds).
const MATCHING_ENDPOINTS =
  "from webhook_endpoints where status = 'enabled' and (types is null or types like '%,' || new.type || ',%')"
const DELIVERY_COLUMNS = 'endpoint_id, event_id, status, attempts, due_at, created_at'

const SQLITE_TRIGGER = `create trigger webhook_fan_out after insert on events begin
  insert into webhook_deliveries (${DELIVERY_COLUMNS})
  select id, new.id, 'pending', 0, cast(round((julianday(new.occurred_at) - 2440587.5) * 86400000) as integer), \
new.occurred_at
  ${MATCHING_ENDPOINTS};
end`

const POSTGRES_FUNCTION = `create function webhook_fan_out() returns trigger language plpgsql as $$
begin
  insert into webhook_deliveries (${DELIVERY_COLUMNS})
  select id, new.id, 'pending', 0, (extract(epoch from new.occurred_at::timestamptz) * 1000)::bigint, new.occurred_at
  ${MATCHING_ENDPOINTS};
  return null;
end
$$`

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', idType(db), (column) => idColumn(db, column))
    .addColumn('url', 'text', (column) => column.notNull())
    .addColumn('types', 'text')
    .addColumn('description', 'text')
    .addColumn('status', 'text', (column) => column.notNull().check(sql`status in ('enabled', 'disabled')`))
    .addColumn('secret', 'text', (column) => column.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute()

  // No foreign key to the endpoint: a change that commits while its endpoint is being deleted must not fail for
  // it. Such a delivery is never claimed (claims join enabled endpoints) and the purge removes it.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', idType(db), (column) => idColumn(db, column))
    .addColumn('endpoint_id', 'bigint', (column) => column.notNull())
    .addColumn('event_id', 'bigint', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull().check(sql`status in ('pending', 'succeeded', 'failed')`))
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('due_at', 'bigint')
    .addColumn('lease_token', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('finished_at', 'text')
    .execute()
  // An endpoint's deliveries, newest first (the delivery log); its pending ones by due time (claims, and the
  // earliest due: wake-ups and the age metric); finished ones by age (the purge). The partial indexes stay small:
  // only what is pending, or finished.
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'id'])
    .execute()
  await db.schema
    .createIndex('webhook_deliveries_due_per_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'due_at'])
    .where(sql.ref('status'), '=', 'pending')
    .execute()
  await db.schema
    .createIndex('webhook_deliveries_finished')
    .on('webhook_deliveries')
    .column('finished_at')
    .where(sql.ref('finished_at'), 'is not', null)
    .execute()

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'bigint', (column) => column.notNull())
    .addColumn('attempt', 'integer', (column) => column.notNull())
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('duration_ms', 'integer', (column) => column.notNull())
    .addColumn('outcome', 'text', (column) => column.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_body', 'text')
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
    .execute()

  if (isPostgres(db)) {
    await sql.raw(POSTGRES_FUNCTION).execute(db)
    await sql`create trigger webhook_fan_out after insert on events
      for each row execute function webhook_fan_out()`.execute(db)
  } else {
    await sql.raw(SQLITE_TRIGGER).execute(db)
  }

  // Keys that had every scope there was keep having every scope; a key limited to some keeps its limits.
  await sql`update api_keys set scopes = ${`${FIVE_SCOPES} webhooks:manage`} where scopes = ${FIVE_SCOPES}`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update api_keys set scopes = ${FIVE_SCOPES} where scopes = ${`${FIVE_SCOPES} webhooks:manage`}`.execute(db)
  await sql`drop trigger webhook_fan_out${isPostgres(db) ? sql` on events` : sql``}`.execute(db)
  if (isPostgres(db)) await sql`drop function webhook_fan_out()`.execute(db)
  await db.schema.dropTable('webhook_attempts').execute()
  await db.schema.dropTable('webhook_deliveries').execute()
  await db.schema.dropTable('webhook_endpoints').execute()
}
