// Refusing to migrate where the role may not create tables, in the operator's terms (db/migrate.ts).
import { sql, type Kysely, type Migrator } from 'kysely'
import type { Database } from './database.js'

/**
 * A role that may not create tables in its schema, while migrations remain to run: refused in the operator's terms
 * before the first CREATE TABLE fails. PostgreSQL 15 gives CREATE on `public` to the database's owner only, and
 * inside an import's transaction Kysely's migrator asks another question after the failure, whose "current
 * transaction is aborted" would take the place of "permission denied".
 */
export async function refuseSchemaWithoutCreate(
  db: Kysely<Database>,
  migrator: Migrator,
  schema: string,
): Promise<void> {
  const { rows } = await sql<{
    allowed: boolean
    role: string
  }>`select has_schema_privilege(current_schema(), 'CREATE') as allowed, current_user as role`.execute(db)
  const [row] = rows
  if (!row || row.allowed) return
  if ((await migrator.getMigrations()).every((migration) => migration.executedAt)) return
  throw new Error(
    `the role ${row.role} may not create tables in schema ${schema}, where petstore's are not all in place yet: ` +
      `make the role the database's owner (createdb -O ${row.role}), or GRANT CREATE ON SCHEMA ${schema} TO ` +
      `${row.role}`,
  )
}
