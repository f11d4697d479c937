import { sql, type Kysely } from 'kysely'
import { idColumn, idType } from './dialect-helpers.js'

// Migrations see the database as it was when they were written, so they take Kysely<unknown>, not Database.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pets')
    .addColumn('id', idType(db), (column) => idColumn(db, column))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('category_id', 'bigint', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull().check(sql`status in ('available', 'pending', 'sold')`))
    .execute()
  // Keyset pagination filtered by status walks this index in id order.
  await db.schema.createIndex('pets_status_id').on('pets').columns(['status', 'id']).execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', idType(db), (column) => idColumn(db, column))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('key_hash', 'text', (column) => column.notNull().unique())
    .addColumn('key_prefix', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute()

  await db.schema
    .createTable('service_secrets')
    .addColumn('name', 'text', (column) => column.primaryKey())
    .addColumn('value', 'text', (column) => column.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('service_secrets').execute()
  await db.schema.dropTable('api_keys').execute()
  await db.schema.dropTable('pets').execute()
}
