import { Kysely } from 'kysely'
import type pg from 'pg'
import type { Database, Writer } from './database.js'
import { readPostgresDataVersion, readWithPostgresDataVersion } from './postgres-data-version.js'
import { listenWith } from './postgres-listen.js'
import { ReadPipeline } from './postgres-pipeline.js'
import { isStalePreparedStatement, nameStatements, StatementNames } from './postgres-statements.js'
import { pipelinedPostgresDialect } from './postgres-pipelined-dialect.js'
import { WorkingSchemaPostgresDialect } from './postgres-schema-introspector.js'
import { connectionUrl } from './postgres-tls-preference.js'
import { StatementGroups } from './postgres/combined-statements.js'
import { pipelineAsPool } from './postgres/pipeline-as-pool.js'
import type { Store } from './store.js'

export interface PostgresOptions {
  url: string
  poolSize: number
  statementTimeoutMs: number
  /** Called for errors of idle pooled connections (e.g. the server restarted); they must not crash the process. */
  onIdleError: (error: Error) => void
}

/** Waiting longer than this for a connection (database down, pool exhausted) fails the request with 503. */
export const CONNECT_TIMEOUT_MS = 1500
const INT8_OID = 20

/**
 * bigint columns arrive as text from pg (they may exceed 2^53). The service keeps every int64 within
 * 1 … 2^53−1, so they are read as exact numbers; anything outside that range is an error, never a rounding.
 */
export function parseInt8(text: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value))
    throw new RangeError(`int8 value ${text} is outside the exactly representable range`)
  return value
}

/**
 * pg's pool abandons a client whose connection attempt timed out (a black-holed network); when that
 * client's socket dies later, it emits 'error' with nobody listening, which would crash the process.
 * Every client therefore gets a listener of its own; errors of clients in use still reach their queries.
 * Every client also sends its statements named, so that they are planned once (postgres-statements.ts).
 */
function clientClass(
  Client: typeof pg.Client,
  onError: (error: Error) => void,
  names: StatementNames,
): typeof pg.Client {
  return class PetstoreClient extends Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config)
      this.on('error', onError)
      nameStatements(this, names)
    }
  }
}

/** Connections for reads outside transactions: pipelined, shared by every read (postgres-pipeline.ts). */
const READ_CONNECTIONS = 2
/** Connections for bookkeeping transactions (Store.bookkeeping): the deliverer runs two at a time at most. */
const BOOKKEEPING_CONNECTIONS = 2
/**
 * A transaction left open by a client that hangs (a process stopped or frozen, a network that drops its packets;
 * not one that died: its connection closes) is ended by the server after this long, so that the locks it holds
 * pass on: a category write holds every pet write back, on every instance, until it ends. The service's own
 * transactions never wait that long between two statements.
 */
const TRANSACTION_IDLE_LIMIT_MS = 10_000

interface Connections {
  /** For transactions (DATABASE_POOL_SIZE connections), migrations and the readiness check. */
  pool: pg.Pool
  /** For bookkeeping transactions, which commit without waiting for the disk. */
  bookkeeping: pg.Pool
  reads: ReadPipeline
  /** One connection for sequencing transactions (Store.sequencing), durable like the pool's. */
  sequencing: pg.Pool
  /** A connection outside every pool and pipeline (LISTEN). */
  newClient: () => pg.Client
  /** One connection for migrations, without the statement time-outs, closed a second after its last use. */
  migrations: pg.Pool
}

/**
 * A numbering's statement works through every event waiting for its number, and when numbering was held up (the
 * database away, every instance stopped while a tool wrote) that can be hundreds of thousands: about a second
 * for each million. Cut off at the requests' time-out, it would fail every time while the backlog grew, and the
 * feed and webhooks would stall for good; it gets at least a minute.
 */
const NUMBERING_STATEMENT_TIMEOUT_MS = 60_000

function numberingTimeouts(statementTimeoutMs: number): Pick<pg.ClientConfig, 'statement_timeout' | 'query_timeout'> {
  const timeout = Math.max(statementTimeoutMs, NUMBERING_STATEMENT_TIMEOUT_MS)
  return { statement_timeout: timeout, query_timeout: timeout + 250 }
}

/** The connections, with pg loaded only now: a service on SQLite never loads it (about 2.5 MiB of memory). */
async function openConnections(options: PostgresOptions): Promise<Connections> {
  const { default: pg } = await import('pg')
  const Client = clientClass(pg.Client, options.onIdleError, new StatementNames())
  const connection = { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true }
  const url = await connectionUrl(options.url, (asked) => new pg.Client({ ...connection, connectionString: asked }))
  const settings: pg.ClientConfig = {
    ...connection,
    connectionString: url,
    // The server cancels a statement that runs too long; the client gives up a little later in case the
    // network itself is gone and no cancellation can arrive.
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs + 250,
    idle_in_transaction_session_timeout: TRANSACTION_IDLE_LIMIT_MS,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  }
  // Pipeline mode: a transaction's statements are sent without waiting where nothing reads their answers
  // (postgres-transactions.ts). pg's pipeline mode (8.23) is not in its type declarations yet.
  const pool = new pg.Pool({
    ...settings,
    pipeline: true,
    Client,
    max: options.poolSize,
    idleTimeoutMillis: 30_000,
  } as pg.PoolConfig)
  pool.on('error', options.onIdleError)
  const bookkeeping = new pg.Pool({
    ...settings,
    pipeline: true,
    Client,
    max: BOOKKEEPING_CONNECTIONS,
    idleTimeoutMillis: 30_000,
  } as pg.PoolConfig)
  bookkeeping.on('error', options.onIdleError)
  // Set per connection, not in the connection's options: DATABASE_URL may carry options of its own (a
  // search_path), which would replace them. Queued before any query of the connection's first checkout.
  bookkeeping.on('connect', (client) => {
    client.query('set synchronous_commit = off').catch(() => {})
  })
  const sequencing = new pg.Pool({
    ...settings,
    ...numberingTimeouts(options.statementTimeoutMs),
    pipeline: true,
    Client,
    max: 1,
    idleTimeoutMillis: 30_000,
  } as pg.PoolConfig)
  sequencing.on('error', options.onIdleError)
  const reads = new ReadPipeline(async () => {
    const client = new Client({ ...settings, pipeline: true } as pg.ClientConfig)
    await client.connect()
    return client
  }, READ_CONNECTIONS)
  const newClient = () => new Client(settings)
  const migrations = new pg.Pool({
    ...settings,
    statement_timeout: undefined,
    query_timeout: undefined,
    idle_in_transaction_session_timeout: undefined,
    max: 1,
    idleTimeoutMillis: 1000,
  })
  migrations.on('error', options.onIdleError)
  return { pool, bookkeeping, reads, sequencing, newClient, migrations }
}

/** What PostgreSQL adds to every store. */
export type PostgresStore = Omit<Store, 'dialect' | 'eventsReadVersion' | 'ping'>

/**
 * A pool of connections for transactions and a read pipeline, created on the first query. Every connection
 * reads committed data, and PostgreSQL groups concurrent commits by itself. Reads are cached while the data
 * version holds (postgres-data-version.ts).
 */
export function openPostgres(options: PostgresOptions): PostgresStore {
  let connections: Promise<Connections> | undefined
  const shared = () => (connections ??= openConnections(options))
  const groups = new StatementGroups()
  const db = new Kysely<Database>({
    dialect: pipelinedPostgresDialect(async () => (await shared()).pool, groups),
  })
  const bookkeeping = new Kysely<Database>({
    dialect: pipelinedPostgresDialect(async () => (await shared()).bookkeeping),
  })
  const sequencing = new Kysely<Database>({
    dialect: pipelinedPostgresDialect(async () => (await shared()).sequencing),
  })
  const read = new Kysely<Database>({
    dialect: new WorkingSchemaPostgresDialect({ pool: async () => pipelineAsPool((await shared()).reads) }),
  })
  const migrations = new Kysely<Database>({
    dialect: new WorkingSchemaPostgresDialect({ pool: async () => (await shared()).migrations }),
  })

  return {
    admin: db,
    migrations,
    read,
    transaction: (work) => runTransaction(db, work),
    bookkeeping: { read: bookkeeping, transaction: (work) => runTransaction(bookkeeping, work) },
    sequencing: { read: sequencing, transaction: (work) => runTransaction(sequencing, work) },
    listen: (channel, handlers) => {
      let closed = false
      let listening: { close(): Promise<void> } | undefined
      shared().then(
        (connections) => {
          if (!closed) listening = listenWith(connections.newClient)(channel, handlers)
        },
        (error: unknown) => handlers.onError(error),
      )
      return {
        async close() {
          closed = true
          await listening?.close()
        },
      }
    },
    readVersion: readPostgresDataVersion(async () => (await shared()).reads),
    readWithVersion: readWithPostgresDataVersion(async () => (await shared()).reads),
    sqliteReader: undefined,
    groupCommitStats: undefined,
    combinedStatementStats: groups.stats,
    async close() {
      await migrations.destroy()
      await read.destroy()
      await bookkeeping.destroy()
      await sequencing.destroy()
      await db.destroy()
      // The version may have been read without the read Kysely ever starting.
      await (await connections?.catch(() => undefined))?.reads.end()
    },
  }
}

/** How often a transaction is run again after statements prepared before a migration went stale in it. */
const STALE_STATEMENT_RETRIES = 3

/**
 * A statement found stale (postgres-statements.ts) aborts its transaction, which then changed nothing; it is
 * run again, its statements now prepared afresh (each attempt renews at least the one that failed). Safe
 * because `work` acts only through its transaction, as DataAccess requires.
 */
async function runTransaction<T>(db: Kysely<Database>, work: (trx: Writer) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction().execute(work)
    } catch (error) {
      if (attempt >= STALE_STATEMENT_RETRIES || !isStalePreparedStatement(error)) throw error
    }
  }
}
