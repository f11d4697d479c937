// The PostgreSQL dialect whose transactions are pipelined (postgres-transactions.ts): Kysely's own adapter and
// compiler, an introspector of the working schema only (postgres-schema-introspector.ts), and a driver that
// hands out one PipelinedConnection per pooled client.
import {
  PostgresAdapter,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type TransactionSettings,
} from 'kysely'
import type pg from 'pg'
import { WorkingSchemaIntrospector } from './postgres-schema-introspector.js'
import { StatementGroups } from './postgres/combined-statements.js'
import { PipelinedConnection } from './postgres-transactions.js'

class PipelinedPostgresDriver implements Driver {
  readonly #pool: () => Promise<pg.Pool>
  readonly #groups: StatementGroups

  constructor(pool: () => Promise<pg.Pool>, groups: StatementGroups) {
    this.#pool = pool
    this.#groups = groups
  }

  async init(): Promise<void> {}

  /** The pool's client is checked out when the connection first sends (PipelinedConnection). */
  async acquireConnection(): Promise<DatabaseConnection> {
    return new PipelinedConnection(async () => (await this.#pool()).connect(), this.#groups)
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    ;(connection as PipelinedConnection).begin(settings)
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as PipelinedConnection).commit()
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as PipelinedConnection).rollback()
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    ;(connection as PipelinedConnection).release()
  }

  async destroy(): Promise<void> {
    await (await this.#pool()).end()
  }
}

/**
 * Kysely's PostgreSQL dialect with the driver above; `pool` gives the pool whose clients run in pipeline mode,
 * `groups` gathers the statements to combine (one per store).
 */
export function pipelinedPostgresDialect(pool: () => Promise<pg.Pool>, groups = new StatementGroups()): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PipelinedPostgresDriver(pool, groups),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new WorkingSchemaIntrospector(db),
  }
}
