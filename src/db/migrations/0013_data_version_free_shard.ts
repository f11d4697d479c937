import { sql, type Kysely } from 'kysely'
import { isPostgres } from './dialect-helpers.js'

// PostgreSQL: a write bumps a row of the data version (0006) that no other open transaction holds, instead of
// always its connection's row (backend pid modulo 64). Two connections whose pids meet modulo 64 shared a row,
// and a writer took that row's lock at the end of each statement, after the rows the statement locked: one
// transaction holding the shared row and waiting for a pet that the other held, while the other waited for the
// shared row, was a deadlock (two concurrent conditional updates of one pet did it: the one that lost its first
// round had already taken the shared row). Now a writer passes by rows other transactions hold, starting from
// its connection's own row, so it never waits for another writer's lock on the data version; only when all 64
// are held does it wait for its own, as before. The sum still grows with every committed write, and MVCC still
// makes it exact. Written out here, not imported: a migration keeps meaning what it meant when it was written.
const SHARDS = 64

/** Quoted as PostgreSQL's quote_ident would (always quoted: harmless, and safe for any schema name). */
const quoted = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`

async function schemaOf(db: Kysely<unknown>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
  const schema = rows[0]?.schema
  if (!schema) throw new Error('no current schema to change the data version in')
  return schema
}

async function replaceBump(db: Kysely<unknown>, body: (table: string) => string): Promise<void> {
  const schema = await schemaOf(db)
  const table = `${quoted(schema)}.data_version`
  await sql
    .raw(
      `create or replace function ${quoted(schema)}.bump_data_version() returns trigger language plpgsql as $$
    begin
      ${body(table)}
      return null;
    end
    $$`,
    )
    .execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return
  await replaceBump(
    db,
    (table) => `update ${table} set version = version + 1 where shard = (
        select shard from ${table} order by (shard - pg_backend_pid() % ${SHARDS} + ${SHARDS}) % ${SHARDS}
        for update skip locked limit 1
      );
      if not found then
        update ${table} set version = version + 1 where shard = pg_backend_pid() % ${SHARDS};
      end if;`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return
  await replaceBump(
    db,
    (table) => `update ${table} set version = version + 1 where shard = pg_backend_pid() % ${SHARDS};`,
  )
}
