// Write transactions on PostgreSQL in fewer round trips. Kysely's pg driver waits for each statement's answer
// before it sends the next, so a create took four round trips: BEGIN, the insert, the event's insert, COMMIT.
// Here the pool's connections run in pg's pipeline mode and two waits are dropped:
//  - BEGIN is sent without waiting for its answer: the transaction's first statement follows it in one write.
//  - A statement whose answer nobody reads (an event's insert: deferUntilCommit) is held back and sent in one
//    write with whatever comes next, the COMMIT as a rule.
// So a create is two round trips. PostgreSQL runs the statements in order, each with its own Sync, so nothing
// changes but the waiting: a statement that fails aborts the transaction, every later statement fails, and the
// COMMIT behind a failed statement only rolls back (PostgreSQL answers it with ROLLBACK, not an error). So the
// first failure is kept and thrown, also at commit: the caller sees the cause, and nothing was committed.
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely'
import type pg from 'pg'
import type { Writer } from './database.js'
import { socketOf } from './postgres-pipeline.js'
import { openTransactions } from './postgres-statements.js'

/** Queries marked to be held back until the transaction's next statement or its commit. */
const deferredQueries = new WeakSet<CompiledQuery>()

/**
 * Runs `query` in `trx` as part of the transaction, without waiting for its answer on PostgreSQL: it is sent
 * with the next statement or the COMMIT, and a failure of it fails the transaction at that point. For
 * statements whose result nobody reads. Elsewhere (SQLite) it simply runs.
 */
export async function deferUntilCommit(trx: Writer, query: CompiledQuery): Promise<void> {
  deferredQueries.add(query)
  await trx.executeQuery(query)
}

const NO_ROWS: QueryResult<never> = { rows: [] }

/** One pooled connection, used for one transaction at a time. */
class PipelinedConnection implements DatabaseConnection {
  readonly client: pg.PoolClient
  /** Sent, answer not awaited yet (BEGIN): their first failure is the transaction's. */
  #unanswered: Promise<unknown>[] = []
  /** Not sent yet (deferUntilCommit). */
  #held: CompiledQuery[] = []

  constructor(client: pg.PoolClient) {
    this.client = client
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (deferredQueries.has(query)) {
      this.#held.push(query)
      return NO_ROWS
    }
    this.#sendHeld()
    return this.#answer(this.#send<R>(query))
  }

  // eslint-disable-next-line require-yield -- a stream would keep a portal open, which pipeline mode refuses
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on PostgreSQL connections in pipeline mode')
  }

  /** BEGIN, sent with the statement that follows it in this turn. */
  begin(settings: TransactionSettings): void {
    openTransactions.add(this.client)
    let text = 'begin'
    if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`
    if (settings.accessMode) text += ` ${settings.accessMode}`
    this.#corkUntilNextTurn()
    this.#sendUnanswered(CompiledQuery.raw(text))
  }

  /** Sends what was held back and the COMMIT in one write; throws the transaction's first failure. */
  async commit(): Promise<void> {
    this.#corkUntilNextTurn()
    this.#sendHeld()
    await this.#answer(this.#send(CompiledQuery.raw('commit')))
    openTransactions.delete(this.client)
  }

  /** Drops what was held back; ends the transaction whatever the outcome of what was sent. */
  async rollback(): Promise<void> {
    this.#held = []
    const unanswered = this.#unanswered
    this.#unanswered = []
    await Promise.allSettled(unanswered)
    try {
      await this.#send(CompiledQuery.raw('rollback'))
    } finally {
      openTransactions.delete(this.client)
    }
  }

  #send<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.client.query(query.sql, [...query.parameters]).then(({ command, rowCount, rows }) => ({
      numAffectedRows:
        command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
          ? BigInt(rowCount ?? 0)
          : undefined,
      rows: (rows ?? []) as R[],
    }))
  }

  #sendUnanswered(query: CompiledQuery): void {
    const answer = this.#send(query)
    // Awaited later (#answer, rollback); until then a failure must not count as unhandled.
    answer.catch(() => {})
    this.#unanswered.push(answer)
  }

  #sendHeld(): void {
    const held = this.#held
    this.#held = []
    for (const query of held) this.#sendUnanswered(query)
  }

  /**
   * `result`, unless a statement sent before it without waiting failed: then that failure, the cause (this
   * statement then failed, or its COMMIT rolled back, only because the transaction was aborted).
   */
  async #answer<R>(result: Promise<QueryResult<R>>): Promise<QueryResult<R>> {
    const earlier = this.#unanswered
    this.#unanswered = []
    const settled = await Promise.allSettled([...earlier, result])
    for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason
    return (settled.at(-1) as PromiseFulfilledResult<QueryResult<R>>).value
  }

  /** What is sent in this turn leaves in one write (pg writes each message of each query on its own). */
  #corkUntilNextTurn(): void {
    const socket = socketOf(this.client)
    if (!socket) return
    socket.cork()
    process.nextTick(() => socket.uncork())
  }
}

class PipelinedPostgresDriver implements Driver {
  readonly #pool: () => Promise<pg.Pool>
  #connections = new WeakMap<pg.PoolClient, PipelinedConnection>()

  constructor(pool: () => Promise<pg.Pool>) {
    this.#pool = pool
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await (await this.#pool()).connect()
    let connection = this.#connections.get(client)
    if (!connection) {
      connection = new PipelinedConnection(client)
      this.#connections.set(client, connection)
    }
    return connection
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
    ;(connection as PipelinedConnection).client.release()
  }

  async destroy(): Promise<void> {
    await (await this.#pool()).end()
  }
}

/** Kysely's PostgreSQL dialect with the driver above; `pool` gives the pool whose clients run in pipeline mode. */
export function pipelinedPostgresDialect(pool: () => Promise<pg.Pool>): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PipelinedPostgresDriver(pool),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
  }
}
