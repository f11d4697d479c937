// What Kysely's migrator asks the database (does our schema exist, do its two bookkeeping tables exist), answered
// by looking at the connection's own schema only. Kysely's PostgreSQL introspector lists every column of every
// table in the database, calling pg_get_serial_sequence and has_schema_privilege on each: a table or schema that
// another client drops during that look fails it (42703 "column … of relation … does not exist", 3F000, 42P01),
// although nothing of ours changed. Where several services or test runs share a server, that happens.
import { PostgresDialect, sql } from 'kysely'
import type { DatabaseIntrospector, Kysely, SchemaMetadata, TableMetadata } from 'kysely'

/**
 * An introspector that sees the schemas' names and the tables and views of the working schema (current_schema(),
 * the search_path's first), without their columns: enough for the migrator, and no look at anyone else's tables.
 */
export class WorkingSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>

  constructor(db: Kysely<unknown>) {
    this.#db = db
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`select nspname as name from pg_catalog.pg_namespace`.execute(this.#db)
    return rows
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; kind: string }>`
      select c.relname as name, ns.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
      order by c.relname`.execute(this.#db)
    return rows.map(({ name, schema, kind }) => ({ name, schema, isView: kind === 'v', columns: [] }))
  }

  async getMetadata(): Promise<{ tables: TableMetadata[] }> {
    return { tables: await this.getTables() }
  }
}

/** Kysely's PostgreSQL dialect with the introspector above, for the connections that migrate or check migrations. */
export class WorkingSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new WorkingSchemaIntrospector(db)
  }
}
