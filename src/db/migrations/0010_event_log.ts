import { sql, type Kysely } from 'kysely'
import { isPostgres } from './dialect-helpers.js'

// Event ids become the service's own on PostgreSQL: consecutive integers kept as data, instead of the writing
// transaction's id × 65536 (readable once the whole cluster's oldest running transaction had passed it, so any
// transaction open anywhere on the server held the feed back, and a restore into another cluster gave new
// events smaller ids than the restored ones). A writer now inserts its event without an id; `seq`, taken from a
// sequence at insert, keeps the insertion order, and `xact` (the writing transaction) keeps a transaction's
// events together; a numbering step gives committed events their ids, one numbering at a time
// (events/event-numbering.ts). Readers see numbered events only (id is null until then).
// Written out here, not imported, because a migration must keep meaning what it meant when it was written.
// SQLite already assigns ids at insert, one writer at a time, without gaps: nothing changes there.
//
// Every event keeps its id, so every `after`, Last-Event-ID and delivery held outside stays valid; new ids
// continue after the largest. The table is locked first: a writer of the old scheme that has inserted its event
// is waited for, and no event is inserted while the table changes, so none can appear below the ids kept.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return
  await sql`lock table events in share row exclusive mode`.execute(db)
  await sql`alter table events drop constraint events_pkey`.execute(db)
  await sql`alter table events alter column id drop not null`.execute(db)
  await sql`alter table events add column seq bigint generated always as identity primary key`.execute(db)
  await sql`alter table events add column xact bigint`.execute(db)
  await sql`alter table events alter column xact set default pg_current_xact_id()::text::bigint`.execute(db)
  await sql`create unique index events_id on events (id)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return
  await sql`lock table events in share row exclusive mode`.execute(db)
  // Events not numbered yet get the next ids, as the numbering would have given them.
  await sql`update events set id = numbered.id from (
      select seq, (select coalesce(max(id), 0) from events) + row_number() over (order by xact, seq) as id
      from events where id is null
    ) as numbered where events.seq = numbered.seq`.execute(db)
  await sql`drop index events_id`.execute(db)
  await sql`alter table events drop column xact`.execute(db)
  await sql`alter table events drop column seq`.execute(db)
  await sql`alter table events alter column id set not null`.execute(db)
  await sql`alter table events add primary key (id)`.execute(db)
}
