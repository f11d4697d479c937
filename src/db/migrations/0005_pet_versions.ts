import type { Kysely } from 'kysely'

// Catalogue maintenance (updatePet, deletePet). `version` counts the changes of a pet (its ETag is made from
// it): every write of a pet row sets it one higher, so a conditional update (`… where version = ?`) finds out
// whether anyone changed the pet since it was read. Deleting a pet keeps its row and sets `deleted_at` (an
// RFC 3339 UTC instant): orders keep pointing at it (their foreign key), its id is never handed out again, and
// every read and write of pets passes it by. Both columns are additive, so a running older version keeps
// working on the migrated schema. The (status, id) index stays as it is: a page query reads each pet's row
// anyway (for its name), so the `deleted_at is null` condition costs nothing more on it.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema
    .alterTable('pets')
    .addColumn('version', 'integer', (column) => column.notNull().defaultTo(1))
    .execute()
  await db.schema.alterTable('pets').addColumn('deleted_at', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pets').dropColumn('deleted_at').execute()
  await db.schema.alterTable('pets').dropColumn('version').execute()
}
