import type pg from 'pg'

/** The service runs a small fixed set of statements; a bound keeps generated ones from growing it forever. */
const MAX_NAMED_STATEMENTS = 256

/**
 * Texts named per shape (see shapeOf). A statement over a list (`id in ($1, $2, …)`, a batch's rows) has a text
 * for every length of its list: without this bound, the webhook deliverer's batches alone took every name within
 * minutes, and each statement first seen after that went unnamed until a restart.
 */
const MAX_NAMED_PER_SHAPE = 4

/** The text with every list of parameters, and every list of parenthesised parameter lists, made one parameter. */
function shapeOf(text: string): string {
  return text
    .replace(/\$\d+/g, '$')
    .replace(/\$(?:, \$)+/g, '$')
    .replace(/\(\$\)(?:, \(\$\))+/g, '($)')
}

/**
 * Names for the statements the query builder sends: a statement sent with a name is parsed and planned once
 * per connection, then only bound and executed. Kysely's pg driver sends every query unnamed, which makes
 * PostgreSQL parse and plan it each time; for the small indexed queries of this service that is most of their
 * cost (a get by id measured about 1.5 × as fast named). Shared by every connection of the process.
 *
 * A prepared statement outlives a change of its table: after a migration adds a column, PostgreSQL refuses to
 * run a prepared `select *` ("cached plan must not change result type") on every connection that prepared it
 * before. On that error the text gets a fresh name, so that every connection prepares it again, once.
 */
export class StatementNames {
  readonly #names = new Map<string, string>()
  /** How many texts of each shape were given a name: at most one entry per name. */
  readonly #namedPerShape = new Map<string, number>()
  #issued = 0

  /**
   * The name to send `text` under; undefined (sent unnamed, parsed each time) once the bound is reached, or when
   * texts of its shape already hold their share of names.
   */
  nameOf(text: string): string | undefined {
    let name = this.#names.get(text)
    if (name === undefined && this.#names.size < MAX_NAMED_STATEMENTS) {
      const shape = shapeOf(text)
      const named = this.#namedPerShape.get(shape) ?? 0
      if (named >= MAX_NAMED_PER_SHAPE) return undefined
      this.#namedPerShape.set(shape, named + 1)
      // Never reused: a connection that prepared a name keeps it, so a name must keep meaning one text.
      name = `petstore_${++this.#issued}`
      this.#names.set(text, name)
    }
    return name
  }

  /**
   * Called after `text`, sent as `name`, found its prepared plan stale: its next use prepares it afresh under a
   * new name. Only once: other reads that were sent under the stale name at the same time find a new one.
   */
  forget(text: string, name: string | undefined): void {
    if (name === undefined || this.#names.get(text) !== name) return
    this.#names.delete(text)
    const shape = shapeOf(text)
    this.#namedPerShape.set(shape, (this.#namedPerShape.get(shape) ?? 1) - 1)
  }
}

/** PostgreSQL's answer to a prepared statement whose table changed shape since it was prepared. */
export function isStalePreparedStatement(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === '0A000' &&
    /cached plan must not change result type/.test(String((error as { message?: unknown }).message))
  )
}

/**
 * PostgreSQL refused the statement (severity ERROR, not FATAL or PANIC): its transaction was rolled back, so
 * nothing of it committed, and the session goes on. An error of the session (FATAL) or of the connection may
 * come after the commit, and leaves the connection unusable.
 */
export function statementRefused(error: unknown): boolean {
  // By its fields, as pg's DatabaseError carries them: importing pg here would load it for SQLite too.
  return (
    error instanceof Error &&
    (error as { severity?: unknown }).severity === 'ERROR' &&
    typeof (error as { code?: unknown }).code === 'string'
  )
}

/**
 * Clients with a transaction open (postgres-transactions.ts). In pipeline mode a client's transaction status is
 * that of the last answer received, which may predate a BEGIN already sent, so it is not enough on its own.
 */
export const openTransactions = new WeakSet<pg.Client>()

/**
 * Makes `client` send every query that has parameters (what the query builder sends: text and values, no
 * callback) under a name from `names`. Parameterless ones (begin, commit) keep the simple protocol, one
 * message. A statement found stale outside a transaction is retried once under its new name; inside one, the
 * transaction is already aborted, and the store runs it again (postgres.ts).
 */
export function nameStatements(client: pg.Client, names: StatementNames): void {
  const query = client.query.bind(client) as (config: unknown, values?: unknown, callback?: unknown) => unknown
  const named = async (text: string, values: unknown[]): Promise<pg.QueryResult> => {
    const name = names.nameOf(text)
    try {
      return await (query({ text, values, name }) as Promise<pg.QueryResult>)
    } catch (error) {
      if (isStalePreparedStatement(error)) names.forget(text, name)
      throw error
    }
  }
  const withNames = (config: unknown, values?: unknown, callback?: unknown): unknown => {
    if (typeof config !== 'string' || !Array.isArray(values) || values.length === 0 || callback !== undefined)
      return query(config, values, callback)
    const outsideTransaction = client.getTransactionStatus() === 'I' && !openTransactions.has(client)
    return named(config, values).catch((error: unknown) => {
      if (!outsideTransaction || !isStalePreparedStatement(error)) throw error
      return named(config, values)
    })
  }
  client.query = withNames as typeof client.query
}
