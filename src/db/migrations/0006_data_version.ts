import { sql, type Kysely } from 'kysely'
import { isPostgres } from './dialect-helpers.js'

// PostgreSQL's counterpart of SQLite's PRAGMA data_version: a number that grows with every committed write to
// the tables whose reads instances cache (pets, orders, api_keys), whoever writes (any instance, the CLI, an
// operator in psql). Instances read it once per event-loop turn (src/db/postgres-data-version.ts) and keep
// cached answers only while it holds, so a committed write is seen by the next request on every instance.
//
// The number is the sum of SHARDS rows, and a write bumps the row of its own connection (backend pid modulo
// SHARDS). A single row would be simpler, but its row lock is held until the writer's commit is durable, so
// every writer would wait for the previous one's fsync: commits could no longer be grouped. With a row per
// connection (bar rare collisions of pid modulo SHARDS) writers never wait for each other. The sum still grows
// with every commit that writes one of the tables, and MVCC makes it exact: a read sees the bumps of exactly
// the transactions whose changes it could see. Written out here, not imported: a migration keeps meaning what
// it meant when it was written. SQLite has its PRAGMA, so there this migration does nothing.
const SHARDS = 64
const TABLES = ['pets', 'orders', 'api_keys'] as const

/** Quoted as PostgreSQL's quote_ident would (always quoted: harmless, and safe for any schema name). */
const quoted = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return
  // The trigger names the table with its schema: a writer whose search_path differs (psql, another tool)
  // must still bump the version of this schema, never fail or bump another.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
  const schema = rows[0]?.schema
  if (!schema) throw new Error('no current schema to create the data version in')
  const table = `${quoted(schema)}.data_version`

  // Fill factor 50: every write updates one of these rows; the free space lets PostgreSQL keep the new row
  // versions on the same page (HOT updates) and prune the old ones, so the table stays a page or two.
  await sql
    .raw(`create table ${table} (shard integer primary key, version bigint not null) with (fillfactor = 50)`)
    .execute(db)
  await sql
    .raw(`insert into ${table} (shard, version) select shard, 0 from generate_series(0, ${SHARDS - 1}) as shard`)
    .execute(db)
  await sql
    .raw(
      `
    create function ${quoted(schema)}.bump_data_version() returns trigger language plpgsql as $$
    begin
      update ${table} set version = version + 1 where shard = pg_backend_pid() % ${SHARDS};
      return null;
    end
    $$`,
    )
    .execute(db)
  // Once per statement, not per row: a statement that writes a million rows bumps the version once.
  for (const name of TABLES) {
    await sql
      .raw(
        `
      create trigger ${name}_bump_data_version after insert or update or delete or truncate on ${quoted(schema)}.${name}
      for each statement execute function ${quoted(schema)}.bump_data_version()`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return
  for (const name of TABLES) await sql.raw(`drop trigger ${name}_bump_data_version on ${name}`).execute(db)
  await sql`drop function bump_data_version()`.execute(db)
  await sql`drop table data_version`.execute(db)
}
