import { sql, type Kysely } from 'kysely'
import { idColumn, idType } from './dialect-helpers.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('orders')
    .addColumn('id', idType(db), (column) => idColumn(db, column))
    // No order may point at a pet that does not exist; pets are never deleted, so nothing cascades.
    .addColumn('pet_id', 'bigint', (column) => column.notNull().references('pets.id').onDelete('restrict'))
    .addColumn('quantity', 'integer', (column) => column.notNull().check(sql`quantity between 1 and 100`))
    .addColumn('ship_date', 'text')
    .addColumn('status', 'text', (column) =>
      column.notNull().check(sql`status in ('placed', 'completed', 'cancelled')`),
    )
    .execute()
  // The transitions already allow one open order per pet (only an available pet can be ordered, and ordering
  // makes it pending); the database enforces it too, so no bug or manual edit can create a second one.
  await db.schema
    .createIndex('orders_one_placed_order_per_pet')
    .on('orders')
    .column('pet_id')
    .unique()
    .where(sql.ref('status'), '=', 'placed')
    .execute()
  await db.schema.createIndex('orders_pet_id').on('orders').column('pet_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('orders').execute()
}
