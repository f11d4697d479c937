// A SQLite file of another program, named by a mistaken DATABASE_URL: tables, and no petstore bookkeeping among
// them. The migrations refuse it (migrate.ts), and the connections leave its journal mode as it was (sqlite.ts).

/** The file's own tables, by name (SQLite's internal ones left out). */
export const TABLES_SQL = `select name from sqlite_master
  where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by name`

/** Whether a file holding `tables` belongs to another program: it has tables, and none is petstore's bookkeeping. */
export function isAnotherProgramsFile(tables: readonly string[]): boolean {
  return tables.length > 0 && !tables.includes('kysely_migration')
}
