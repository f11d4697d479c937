// Write transactions on PostgreSQL in fewer round trips. Kysely's pg driver waits for each statement's answer
// before it sends the next, so a create took four round trips: BEGIN, the insert, the event's insert, COMMIT.
// Here the pool's connections run in pg's pipeline mode and two waits are dropped:
//  - BEGIN is sent without waiting for its answer: the transaction's first statement follows it in one write.
//  - A statement whose answer nobody reads (an event's insert: deferUntilCommit) is held back and sent in one
//    write with whatever comes next, the COMMIT as a rule.
//  - A transaction that is a single statement (wholeChange: the unit of work says nothing follows the change,
//    and the change is one statement) is sent as that statement alone, without BEGIN and COMMIT: PostgreSQL runs
//    a statement outside a transaction block as a transaction of its own, atomic, and durable once answered.
//  - Such single statements of many transactions in one turn, when the caller says how to combine them, are sent
//    as one statement (postgres/combined-statements.ts): one round trip and one commit for all of them.
// So a create is one round trip (two with an Idempotency-Key, whose stored response joins it). PostgreSQL runs
// the statements in order, each with its own Sync, so nothing changes but the waiting: a statement that fails
// aborts the transaction, every later statement fails, and the COMMIT behind a failed statement only rolls back
// (PostgreSQL answers it with ROLLBACK, not an error). So the first failure is kept and thrown, also at commit:
// the caller sees the cause, and nothing was committed.
import { CompiledQuery, type DatabaseConnection, type QueryResult, type TransactionSettings } from 'kysely'
import type pg from 'pg'
import type { Writer } from './database.js'
import { ClientOnDemand } from './postgres/client-on-demand.js'
import type { Combinable, StatementGroups } from './postgres/combined-statements.js'
import { socketOf } from './postgres-pipeline.js'
import { openTransactions } from './postgres-statements.js'
import type { UnitOfWork } from './unit-of-work.js'

/**
 * How a statement asks to be sent: `held`, with the transaction's next statement or its COMMIT, its answer not
 * awaited; `alone`, as a transaction of its own when it is the transaction's first statement. The mark travels
 * on the statement itself, so the connection needs nothing beside it to know.
 */
type Sending = 'held' | 'alone'
type MarkedQuery = CompiledQuery & { readonly sending: Sending; readonly combinable?: Combinable }

const marked = (query: CompiledQuery, sending: Sending, combinable?: Combinable): MarkedQuery => ({
  ...query,
  sending,
  ...(combinable ? { combinable } : {}),
})
const markOf = (query: CompiledQuery): Partial<MarkedQuery> => ('sending' in query ? (query as MarkedQuery) : {})

/**
 * Runs `query` in `trx` as part of the transaction, without waiting for its answer on PostgreSQL: it is sent
 * with the next statement or the COMMIT, and a failure of it fails the transaction at that point. For
 * statements whose result nobody reads. Elsewhere (SQLite) it simply runs.
 */
export async function deferUntilCommit(trx: Writer, query: CompiledQuery): Promise<void> {
  await trx.executeQuery(marked(query, 'held'))
}

/**
 * Runs `query`, the whole of a change, in the unit of work. When it is the transaction's first statement and
 * nothing follows the change (changeEndsTransaction), it is sent alone, without BEGIN and COMMIT: one round
 * trip; given `combinable`, combined with the same statements of other transactions made in the same turn. The
 * caller must not fail after it then (nothing could take it back); mapping its rows is all that may follow.
 */
export async function wholeChange<R>(
  { trx, changeEndsTransaction }: Pick<UnitOfWork, 'trx' | 'changeEndsTransaction'>,
  query: CompiledQuery,
  combinable?: Combinable,
): Promise<QueryResult<R>> {
  return trx.executeQuery<R>(changeEndsTransaction ? marked(query, 'alone', combinable) : query)
}

const NO_ROWS: QueryResult<never> = { rows: [] }

/**
 * One transaction's (or one statement's) connection. The pooled client is checked out when the first statement
 * is sent, not when the transaction begins: a change combined with others (combined-statements.ts) is sent by
 * another transaction's client and never takes one, so the pool bounds the statements in flight, not the
 * changes waiting in a turn to be combined.
 */
export class PipelinedConnection implements DatabaseConnection {
  readonly #client: ClientOnDemand
  readonly #groups: StatementGroups
  /** Sent, answer not awaited yet (BEGIN): their first failure is the transaction's. */
  #unanswered: Promise<unknown>[] = []
  /** Not sent yet (deferUntilCommit). */
  #held: CompiledQuery[] = []
  /** BEGIN, not sent yet: it leaves with the transaction's first statement, unless that is all of it. */
  #begin: CompiledQuery | undefined
  /** The transaction was one statement, sent alone: it committed (or failed) with it. */
  #sentAlone = false

  constructor(checkOut: () => Promise<pg.PoolClient>, groups: StatementGroups) {
    this.#client = new ClientOnDemand(checkOut)
    this.#groups = groups
  }

  /** Gives the client back to the pool, if one was checked out. */
  release(): void {
    this.#client.release()
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#sentAlone) throw new Error('a transaction sent as one statement ran another one')
    const { sending, combinable } = markOf(query)
    if (sending === 'held') {
      this.#held.push(query)
      return NO_ROWS
    }
    if (this.#begin && this.#held.length === 0 && sending === 'alone') {
      this.#begin = undefined
      this.#sentAlone = true
      if (combinable) return this.#groups.add<R>(query, combinable, (sent) => this.#sendWhenReady(sent))
      return this.#sendWhenReady<R>(query)
    }
    if (!this.#client.current) await this.#client.ready()
    this.#sendBegin()
    this.#sendHeld()
    return this.#answer(this.#send<R>(query))
  }

  // eslint-disable-next-line require-yield -- a stream would keep a portal open, which pipeline mode refuses
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on PostgreSQL connections in pipeline mode')
  }

  /** BEGIN, held until the transaction's first statement, with which it is sent in one write. */
  begin(settings: TransactionSettings): void {
    this.#sentAlone = false
    let text = 'begin'
    if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`
    if (settings.accessMode) text += ` ${settings.accessMode}`
    this.#begin = CompiledQuery.raw(text)
  }

  /** Sends what was held back and the COMMIT in one write; throws the transaction's first failure. */
  async commit(): Promise<void> {
    if (this.#sentAlone || (this.#begin && this.#held.length === 0)) {
      // Committed with its one statement, or nothing was ever sent: there is no transaction block to end.
      this.#end()
      return
    }
    if (!this.#client.current) await this.#client.ready()
    this.#corkUntilNextTurn()
    this.#sendBegin()
    this.#sendHeld()
    try {
      await this.#answer(this.#send(CompiledQuery.raw('commit')))
    } finally {
      this.#end()
    }
  }

  /** Drops what was held back; ends the transaction whatever the outcome of what was sent. */
  async rollback(): Promise<void> {
    this.#held = []
    if (this.#sentAlone || this.#begin) {
      this.#end()
      return
    }
    const unanswered = this.#unanswered
    this.#unanswered = []
    await Promise.allSettled(unanswered)
    try {
      await this.#send(CompiledQuery.raw('rollback'))
    } finally {
      this.#end()
    }
  }

  #end(): void {
    this.#begin = undefined
    this.#sentAlone = false
    const client = this.#client.current
    if (client) openTransactions.delete(client)
  }

  async #sendWhenReady<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.#client.current) await this.#client.ready()
    return this.#send<R>(query)
  }

  /** The held BEGIN, corked with what follows it in this turn. */
  #sendBegin(): void {
    const begin = this.#begin
    if (!begin) return
    this.#begin = undefined
    openTransactions.add(this.#client.checkedOut)
    this.#corkUntilNextTurn()
    this.#sendUnanswered(begin)
  }

  #send<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.#client.checkedOut
      .query(query.sql, [...query.parameters])
      .then(({ command, rowCount, rows }) => ({
        numAffectedRows:
          command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
            ? BigInt(rowCount ?? 0)
            : undefined,
        rows: (rows ?? []) as R[],
      }))
      .catch((error: unknown) => {
        this.#client.failed(error)
        throw error
      })
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
    const socket = socketOf(this.#client.checkedOut)
    if (!socket) return
    socket.cork()
    process.nextTick(() => socket.uncork())
  }
}
