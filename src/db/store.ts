// Opening the store the configuration names: SQLite (embedded, group commit) or PostgreSQL (pool).
import { sql, type Kysely } from 'kysely'
import type { Config } from '../config.js'
import type { DataAccess, Database } from './database.js'
import type { GroupCommitStats } from './group-commit.js'
import type { CombinedStatementStats } from './postgres/combined-statements.js'
import type { ReadWithVersion } from './postgres-data-version.js'
import type { Listen } from './postgres-listen.js'
import { openPostgres } from './postgres.js'
import { openSqlite } from './sqlite.js'
import type SqliteDatabase from 'better-sqlite3'

/**
 * An open store, as the composition root holds it. Services get only its DataAccess part ({read,
 * transaction}); the rest is for building caches and fast paths, for migrations and for its lifecycle.
 */
export interface Store extends DataAccess {
  /** Which store this is: for messages and tools. A choice of statement by dialect is made in db/ only. */
  dialect: 'sqlite' | 'postgres'
  /**
   * The Kysely instance itself, for migrations (and tests that arrange data). Not for the service: a write
   * through it outside `transaction` is not made durable before it resolves.
   */
  admin: Kysely<Database>
  /**
   * Where migrations run: on PostgreSQL one connection without the statement time-out (a migration rewrites whole
   * tables, which takes seconds at a million pets; DATABASE_STATEMENT_TIMEOUT_MS is for the service's own
   * statements), opened only while it is used; on SQLite the same as `admin`.
   */
  migrations: Kysely<Database>
  /**
   * A number that changes whenever anyone commits a write the caches depend on, for caches of reads: SQLite's
   * PRAGMA data_version, or PostgreSQL's data_version table. It counts every commit acknowledged before the
   * caller's request was received. Undefined for an in-memory SQLite database (then nothing is cached).
   */
  readVersion: (() => Promise<number>) | undefined
  /**
   * A number that changes whenever new events become readable, for the feed's waiting readers: SQLite's data
   * version (an event is readable once committed). Undefined on PostgreSQL, where an event becomes readable
   * when it is numbered, which changes no table the data version counts: waiting readers always look there.
   */
  eventsReadVersion: (() => Promise<number>) | undefined
  /**
   * PostgreSQL only: a read together with, when asked for, the data version read just before it, in one round
   * trip, so that a cache can keep its answer without first waiting for the version (VersionedCache.getFresh).
   */
  readWithVersion: ReadWithVersion | undefined
  /**
   * SQLite only (a file, not :memory:): the read connection itself, for the hottest reads, which run as
   * prepared statements without the query builder (pets/pet-reads.sqlite.ts). It sees committed data only.
   */
  sqliteReader: SqliteDatabase.Database | undefined
  /**
   * Reads and transactions of background bookkeeping whose loss in a crash is harmless because it is made again
   * (the webhook deliverer's looks, fan-outs, claims and outcomes). On PostgreSQL they run on connections of
   * their own, so that they never take one from the writers' pool nor queue in the pipeline that the API's reads
   * share, and transactions commit without waiting for the disk (synchronous_commit off), unlike what
   * DataAccess promises: a crash of the database server may lose the last of them, whole, never a durable
   * transaction committed after them (the WAL is one sequence). A transaction that must not be lost asks for
   * the disk wait itself (commitDurably, durable-commit.ts). On SQLite they are the ordinary read and
   * transactions.
   */
  bookkeeping: DataAccess
  /**
   * PostgreSQL only: durable transactions on one connection of their own, for work that runs one transaction at
   * a time per instance and must not wait behind the writers for a connection (numbering the event log).
   */
  sequencing: DataAccess | undefined
  /** PostgreSQL only: notifications on a channel of this database, on a connection of their own. */
  listen: Listen | undefined
  /** SQLite only: transactions and the COMMITs (fsyncs) that made them durable, counted since start. */
  groupCommitStats: GroupCommitStats | undefined
  /** PostgreSQL only: changes of many transactions sent as one statement, counted since start. */
  combinedStatementStats: CombinedStatementStats | undefined
  /** Resolves when the database answers a trivial read; rejects otherwise. */
  ping(): Promise<void>
  /** Closes every connection. Closing twice is harmless. */
  close(): Promise<void>
}

export type StoreSettings = Pick<Config, 'database' | 'databasePoolSize' | 'databaseStatementTimeoutMs'>

export interface OpenStoreOptions {
  /** SQLite: refuse to create a database file that does not exist yet (SqliteDatabaseMissingError). */
  mustExist?: boolean
}

export function openStore(
  settings: StoreSettings,
  onIdleError: (error: Error) => void = () => {},
  { mustExist = false }: OpenStoreOptions = {},
): Store {
  const { database } = settings
  const store =
    database.kind === 'postgres'
      ? openPostgres({
          url: database.url,
          poolSize: settings.databasePoolSize,
          statementTimeoutMs: settings.databaseStatementTimeoutMs,
          onIdleError,
        })
      : openSqlite(database.path, { mustExist })
  let closed: Promise<void> | undefined
  return {
    ...store,
    dialect: database.kind,
    eventsReadVersion: database.kind === 'sqlite' ? store.readVersion : undefined,
    // Asked as a read, on the connections reads use: an instance whose writes wait for a lock held elsewhere (on
    // PostgreSQL every pool connection queued behind a long transaction, which holds every instance's writes
    // alike; on SQLite the writer behind another process) still serves its reads, and taking it out of a balancer
    // would turn slow writes into refused reads.
    ping: async () => {
      await store.read.selectNoFrom(sql<number>`1`.as('one')).execute()
    },
    close: () => (closed ??= store.close()),
  }
}
