import { sql, type Kysely } from 'kysely'
import { isPostgres } from './dialect-helpers.js'

// PostgreSQL: events wait for their ids in a table of their own, and `events` holds numbered events only.
// Under 0010 a writer inserted its event into `events` without an id and the numbering updated the row: every
// event left a dead row version behind it in `events` (and an index entry for its null id) until vacuum, so the
// feed's pages of 100 read 9 buffers instead of 7, and the table took twice its size. Now a writer inserts into
// `event_inbox` (no index: only the numbering reads it, whole, in the order it numbers), and the numbering moves
// the rows into `events` with their ids, in one statement: `events` is written once per event, in id order.
// Written out here, not imported, because a migration must keep meaning what it meant when it was written.
// SQLite assigns ids at insert: nothing changes there.
//
// The running version keeps working on the migrated schema (an upgrade replaces instances one at a time): a row
// it inserts into `events` without an id is moved into the inbox by a trigger, and its numbering finds nothing
// left to number there. Events it writes are numbered by the first instance of this version. `seq` and `xact`
// stay in `events`, unused and null (they take no space), for that numbering's statement to keep its meaning.
// The trigger also serves anything else that writes an event without an id (an import into PostgreSQL).
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return
  // No writer inserts an event while the tables change; events waiting now are numbered as the numbering would.
  await sql`lock table events in share row exclusive mode`.execute(db)
  await sql`update events set id = numbered.id from (
      select seq, row_number() over (order by xact, seq) + greatest(
        (select coalesce(max(id), 0) from events), (select max(purged_through) from event_retention)
      ) as id
      from events where id is null
    ) as numbered where events.seq = numbered.seq`.execute(db)

  await sql`create table event_inbox (
      seq bigint generated always as identity,
      xact bigint not null default pg_current_xact_id()::text::bigint,
      type text not null,
      occurred_at text not null,
      data text not null
    )`.execute(db)
  // Without a key, its deletes carry the whole row to logical replication (only where wal_level is logical).
  await sql`alter table event_inbox replica identity full`.execute(db)
  // The events' checks hold in the inbox too: a row the numbering could not move would stop every later one.
  const { rows: checks } = await sql<{ definition: string }>`select pg_get_constraintdef(oid) as definition
    from pg_constraint where conrelid = 'events'::regclass and contype = 'c'`.execute(db)
  for (const { definition } of checks) await sql.raw(`alter table event_inbox add ${definition}`).execute(db)

  await sql`alter table events drop constraint events_pkey`.execute(db)
  await sql`alter table events alter column seq drop identity`.execute(db)
  await sql`alter table events alter column seq drop not null`.execute(db)
  await sql`alter table events alter column xact drop default`.execute(db)
  await sql`alter table events alter column id set not null`.execute(db)
  await sql`alter table events add constraint events_pkey primary key using index events_id`.execute(db)

  // The function's tables are those of the schema it is made in, whatever the writer's search_path.
  await sql`create function events_into_inbox() returns trigger language plpgsql set search_path from current as $$
begin
  insert into event_inbox (type, occurred_at, data) values (new.type, new.occurred_at, new.data);
  return null;
end
$$`.execute(db)
  await sql`create trigger events_into_inbox before insert on events
    for each row when (new.id is null) execute function events_into_inbox()`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return
  await sql`lock table events in share row exclusive mode`.execute(db)
  await sql`lock table event_inbox in share row exclusive mode`.execute(db)
  await sql`drop trigger events_into_inbox on events`.execute(db)
  await sql`drop function events_into_inbox()`.execute(db)
  await sql`alter table events drop constraint events_pkey`.execute(db)
  await sql`create unique index events_id on events (id)`.execute(db)
  await sql`alter table events alter column id drop not null`.execute(db)
  // seq orders only the events without an id: numbered ones take their id, the waiting ones follow in the
  // order they were written, still without an id, for 0010's numbering.
  await sql`update events set seq = id`.execute(db)
  await sql`insert into events (type, occurred_at, data, xact, seq)
    select type, occurred_at, data, xact,
      (select coalesce(max(seq), 0) from events) + row_number() over (order by xact, seq)
    from event_inbox`.execute(db)
  await sql`alter table events alter column seq set not null`.execute(db)
  await sql`alter table events add primary key (seq)`.execute(db)
  await sql`alter table events alter column seq add generated always as identity`.execute(db)
  await sql`select setval(pg_get_serial_sequence('events', 'seq'), (select max(seq) from events))
    where exists (select 1 from events)`.execute(db)
  await sql`alter table events alter column xact set default pg_current_xact_id()::text::bigint`.execute(db)
  await sql`drop table event_inbox`.execute(db)
}
