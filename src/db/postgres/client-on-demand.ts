import type pg from 'pg'
import { statementRefused } from '../postgres-statements.js'

/**
 * SQLSTATE 25006: the session accepts no writes. A connection opened to a standby (during a failover, before the
 * new primary takes the address) stays on it, and one opened read-only stays so: given back to the pool, it would
 * refuse every write it is handed until it sat idle long enough to be closed, which a busy service never lets it,
 * while the 503 tells clients to retry. Not reused, the next write opens a connection that reaches the primary.
 */
const refusesWrites = (error: unknown): boolean => (error as { code?: unknown }).code === '25006'

/**
 * A transaction's pooled client, checked out when it is first needed rather than when the transaction begins
 * (postgres-transactions.ts says why), and given back in the state it is in.
 */
export class ClientOnDemand {
  readonly #checkOut: () => Promise<pg.PoolClient>
  #client: pg.PoolClient | undefined
  /** The check-out under way: statements of one transaction sent at the same time share it. */
  #checkingOut: Promise<void> | undefined
  /** Released: a statement still waiting for its client (its work ended without awaiting it) sends nothing. */
  #released = false
  /** A statement failed otherwise than refused (the connection or session ended): the client is not reused. */
  #broken = false

  constructor(checkOut: () => Promise<pg.PoolClient>) {
    this.#checkOut = checkOut
  }

  /** The client, if checked out. */
  get current(): pg.PoolClient | undefined {
    return this.#client
  }

  /** Checks the client out, unless it is already. */
  ready(): Promise<void> {
    if (this.#client) return Promise.resolve()
    this.#checkingOut ??= this.#checkOut().then((client) => {
      if (this.#released) {
        client.release()
        throw new Error('a statement was sent after its transaction had ended')
      }
      this.#client = client
    })
    return this.#checkingOut
  }

  /** The client, which must be checked out (ready). */
  get checkedOut(): pg.PoolClient {
    if (!this.#client) throw new Error('a statement was sent before a client was checked out')
    return this.#client
  }

  /**
   * Notes a statement's failure: one PostgreSQL did not simply refuse leaves the client unusable, and so does a
   * write refused because the session accepts none.
   */
  failed(error: unknown): void {
    if (!statementRefused(error) || refusesWrites(error)) this.#broken = true
  }

  /** Gives the client back to the pool, if one was checked out; one checked out later goes straight back. */
  release(): void {
    this.#released = true
    // A broken client, given back as usable, could be handed out again before the pool notices it is closed.
    this.#client?.release(this.#broken)
    this.#client = undefined
  }
}
