import { sql, type Kysely } from 'kysely'
import { isPostgres } from './dialect-helpers.js'

// The fan-out leaves the writers' transactions: instead of a trigger that inserted a delivery with every event,
// the deliverer reads the event feed from a stored position and creates the deliveries itself, in batches
// (webhooks/delivery/fan-out.repository.ts). A create then costs the same with subscribed endpoints as without; the
// trigger made every create's transaction insert a row per endpoint, which cost PostgreSQL 13 – 20 % of its
// create throughput. Written out here, not imported, because a migration must keep meaning what it meant.
//  - webhook_fan_out: one row, the id of the last event the deliveries were created for.
//  - webhook_endpoints.receives_after: the feed's newest readable event when the endpoint was registered or
//    last enabled. It receives only events after it, as it did when the trigger made deliveries at commit.
//
// The position starts at the newest readable event, taken while the trigger still runs, and the trigger is dropped
// after: every event up to the position has its deliveries from the trigger, and every later one is fanned out.
// An event after the position that the trigger also saw (another process writing meanwhile; on PostgreSQL one
// committed while an older transaction was still open on the server) is then delivered twice, under the same
// webhook-id: at least once, never lost. SQLite runs these statements without a transaction around them (Kysely
// has no transactional DDL there), hence this order, and steps that can run again after an interruption.
const READABLE_ON_POSTGRES = 'id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint * 65536'

async function hasReceivesAfter(db: Kysely<unknown>): Promise<boolean> {
  const query = isPostgres(db)
    ? sql`select 1 from information_schema.columns where table_schema = current_schema()
        and table_name = 'webhook_endpoints' and column_name = 'receives_after'`
    : sql`select 1 from pragma_table_info('webhook_endpoints') where name = 'receives_after'`
  return (await query.execute(db)).rows.length > 0
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_fan_out')
    .ifNotExists()
    .addColumn('position', 'bigint', (column) => column.notNull())
    .execute()
  const readable = isPostgres(db) ? sql.raw(READABLE_ON_POSTGRES) : sql.raw('1 = 1')
  await sql`insert into webhook_fan_out (position) select coalesce(max(id), 0) from events
    where ${readable} and not exists (select 1 from webhook_fan_out)`.execute(db)
  if (!(await hasReceivesAfter(db))) {
    await db.schema
      .alterTable('webhook_endpoints')
      .addColumn('receives_after', 'bigint', (column) => column.notNull().defaultTo(0))
      .execute()
    await sql`update webhook_endpoints set receives_after = (select position from webhook_fan_out)`.execute(db)
  }
  await sql`drop trigger if exists webhook_fan_out${isPostgres(db) ? sql` on events` : sql``}`.execute(db)
  if (isPostgres(db)) await sql`drop function if exists webhook_fan_out()`.execute(db)

  // Claims take an endpoint's pending deliveries in (due_at, id) order. With due_at alone in the index, a fan-out
  // batch (many deliveries due at the same instant) made every claim read and sort the whole pending backlog:
  // 4.8 ms instead of 0.2 ms with 5,000 pending.
  await db.schema.dropIndex('webhook_deliveries_due_per_endpoint').ifExists().execute()
  await db.schema
    .createIndex('webhook_deliveries_due_per_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'due_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_due_per_endpoint').execute()
  await db.schema
    .createIndex('webhook_deliveries_due_per_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'due_at'])
    .where(sql.ref('status'), '=', 'pending')
    .execute()
  await db.schema.alterTable('webhook_endpoints').dropColumn('receives_after').execute()
  await db.schema.dropTable('webhook_fan_out').execute()
  const columns = 'endpoint_id, event_id, status, attempts, due_at, created_at'
  const matching =
    "from webhook_endpoints where status = 'enabled' and (types is null or types like '%,' || new.type || ',%')"
  if (isPostgres(db)) {
    await sql
      .raw(
        `create function webhook_fan_out() returns trigger language plpgsql as $$
begin
  insert into webhook_deliveries (${columns})
  select id, new.id, 'pending', 0, (extract(epoch from new.occurred_at::timestamptz) * 1000)::bigint, new.occurred_at
  ${matching};
  return null;
end
$$`,
      )
      .execute(db)
    await sql`create trigger webhook_fan_out after insert on events
      for each row execute function webhook_fan_out()`.execute(db)
  } else {
    await sql
      .raw(
        `create trigger webhook_fan_out after insert on events begin
  insert into webhook_deliveries (${columns})
  select id, new.id, 'pending', 0, cast(round((julianday(new.occurred_at) - 2440587.5) * 86400000) as integer), \
new.occurred_at
  ${matching};
end`,
      )
      .execute(db)
  }
}
