import { sql, type Kysely } from 'kysely'
import { idType, isPostgres } from './dialect-helpers.js'

// Category records. A category's id is chosen by the service, not by the database: a new one goes above every
// category id and every categoryId a pet uses, and above every id handed out before (category_id_counter, one
// row, whose row lock also puts the category writes in one line on PostgreSQL). `name_key` is the name
// case-folded by the service (the same function whichever store), so that the unique index refuses two names
// that differ only in case without relying on the databases' lower(), which differ. `version` counts changes
// (the ETag). The two pets indexes serve the list filtered by category (with and without status) in id
// order, and the check that no pet uses a category before it is deleted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await allowEventTypes(db, EVENT_TYPES)
  await db.schema
    .createTable('categories')
    .addColumn('id', idType(db), (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('name_key', 'text', (column) => column.notNull())
    .addColumn('version', 'integer', (column) => column.notNull().defaultTo(1))
    .execute()
  await db.schema.createIndex('categories_name_key').on('categories').column('name_key').unique().execute()
  await db.schema
    .createTable('category_id_counter')
    .addColumn('last_id', 'bigint', (column) => column.notNull())
    .execute()
  await sql`insert into category_id_counter (last_id) values (0)`.execute(db)
  await db.schema.createIndex('pets_category_id_id').on('pets').columns(['category_id', 'id']).execute()
  await db.schema
    .createIndex('pets_category_id_status_id')
    .on('pets')
    .columns(['category_id', 'status', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from events where type like 'category.%'`.execute(db)
  await allowEventTypes(db, EARLIER_EVENT_TYPES)
  await db.schema.dropIndex('pets_category_id_status_id').execute()
  await db.schema.dropIndex('pets_category_id_id').execute()
  await db.schema.dropTable('category_id_counter').execute()
  await db.schema.dropTable('categories').execute()
}

// Written out here, not imported: a migration keeps meaning what it meant when it was written.
const EARLIER_EVENT_TYPES = [
  'pet.created',
  'pet.updated',
  'pet.deleted',
  'order.placed',
  'order.cancelled',
  'order.completed',
]
const EVENT_TYPES = [...EARLIER_EVENT_TYPES, 'category.created', 'category.updated', 'category.deleted']

const typeCheck = (types: readonly string[]) => `type in (${types.map((type) => `'${type}'`).join(', ')})`

/** Replaces the check on the events' `type` column with one that admits exactly `types`. */
async function allowEventTypes(db: Kysely<unknown>, types: readonly string[]): Promise<void> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ name: string }>`select conname as name from pg_constraint
      where conrelid = 'events'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%type%'`.execute(db)
    for (const { name } of rows) await sql`alter table events drop constraint ${sql.id(name)}`.execute(db)
    await sql.raw(`alter table events add constraint events_type_check check (${typeCheck(types)})`).execute(db)
    return
  }
  await rebuildSqliteEvents(db, types)
}

/**
 * SQLite cannot change a check constraint in place: the table is made again from its own definition with the
 * new check, its rows copied, and its indexes and triggers made again. Its AUTOINCREMENT position is carried
 * over, so that the ids of purged events are never handed out again.
 */
async function rebuildSqliteEvents(db: Kysely<unknown>, types: readonly string[]): Promise<void> {
  const { rows: schema } = await sql<{ type: string; sql: string }>`select type, sql from sqlite_master
    where tbl_name = 'events' and sql is not null order by type = 'table' desc`.execute(db)
  const [table, ...dependents] = schema
  if (table?.type !== 'table') throw new Error('the events table is missing')
  const widened = table.sql
    .replace(/type in \([^)]*\)/, typeCheck(types))
    .replace(/^create table ("?)events\1/i, 'create table events_widened')
  if (!widened.includes(typeCheck(types)) || !widened.includes('events_widened'))
    throw new Error(`cannot read the events table's definition: ${table.sql}`)
  const { rows: sequence } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'events'`.execute(
    db,
  )
  await sql.raw(widened).execute(db)
  await sql`insert into events_widened select * from events`.execute(db)
  await sql`drop table events`.execute(db)
  await sql`alter table events_widened rename to events`.execute(db)
  for (const dependent of dependents) await sql.raw(dependent.sql).execute(db)
  const seq = sequence[0]?.seq
  if (seq !== undefined) await sql`update sqlite_sequence set seq = ${seq} where name = 'events'`.execute(db)
}
