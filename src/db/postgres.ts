import { Kysely, PostgresDialect } from 'kysely'
import type pg from 'pg'
import type { Database } from './database.js'

export interface PostgresOptions {
  url: string
  poolSize: number
  statementTimeoutMs: number
  /** Called for errors of idle pooled connections (e.g. the server restarted); they must not crash the process. */
  onIdleError: (error: Error) => void
}

/** Waiting longer than this for a connection (database down, pool exhausted) fails the request with 503. */
const CONNECT_TIMEOUT_MS = 1500
const INT8_OID = 20

/**
 * bigint columns arrive as text from pg (they may exceed 2^53). The service keeps every int64 within
 * 1 … 2^53−1, so they are read as exact numbers; anything outside that range is an error, never a rounding.
 */
function parseInt8(text: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value ${text} is outside the exactly representable range`)
  return value
}

/**
 * pg's pool abandons a client whose connection attempt timed out (a black-holed network); when that
 * client's socket dies later, it emits 'error' with nobody listening, which would crash the process.
 * Every client therefore gets a listener of its own; errors of clients in use still reach their queries.
 */
function clientClass(Client: typeof pg.Client, onError: (error: Error) => void): typeof pg.Client {
  return class ListenedClient extends Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config)
      this.on('error', onError)
    }
  }
}

/** The pool, with pg loaded only now: a service on SQLite never loads it (about 2.5 MiB of memory). */
async function createPool(options: PostgresOptions): Promise<pg.Pool> {
  const { default: pg } = await import('pg')
  const pool = new pg.Pool({
    Client: clientClass(pg.Client, options.onIdleError),
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    // The server cancels a statement that runs too long; the client gives up a little later in case the
    // network itself is gone and no cancellation can arrive.
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs + 250,
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  })
  pool.on('error', options.onIdleError)
  return pool
}

/** Kysely creates the pool on the first query. */
export function openPostgres(options: PostgresOptions): Kysely<Database> {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: () => createPool(options) }) })
}
