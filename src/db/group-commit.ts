// Group commit for SQLite. With synchronous=FULL every COMMIT waits for an fsync, and one fsync per request
// caps durable writes at the disk's sync rate. Here every transaction becomes a SAVEPOINT inside one open
// batch transaction; the batch COMMITs (one fsync) on the next turn of the event loop, when every request
// that arrived meanwhile has added its work. Each caller is answered only after the batch that holds its
// work has committed, so nothing is acknowledged before it is durable. A transaction that fails rolls back
// to its savepoint without disturbing the others; a batch whose COMMIT fails fails all of its members.
import type SqliteDatabase from 'better-sqlite3'
import { SqliteDialect, SqliteDriver, type Driver, type Kysely, type SqliteDialectConfig } from 'kysely'
import type { Database } from './database.js'

interface Batch {
  committed: Promise<void>
  resolve(): void
  reject(error: unknown): void
}

function newBatch(): Batch {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const committed = new Promise<void>((onResolve, onReject) => {
    resolve = onResolve
    reject = onReject
  })
  // Work that nobody awaits (a migration, say) must not turn a failed commit into an unhandled rejection;
  // awaiting callers still receive the error.
  committed.catch(() => {})
  return { committed, resolve, reject }
}

const SAVEPOINT = 'petstore_tx'
/** Retries of a busy write lock start at 1 ms and double up to this. */
const MAX_LOCK_RETRY_DELAY_MS = 25

/** Counts since start: how many transactions committed, in how many COMMITs (fsyncs). */
export interface GroupCommitStats {
  commits: number
  transactions: number
}

export class GroupCommit {
  readonly #handle: SqliteDatabase.Database
  readonly stats: GroupCommitStats = { commits: 0, transactions: 0 }
  #batch: Batch | undefined
  #batchSize = 0
  /** The flush scheduled for the next turn, until it has run. */
  #scheduledFlush: Promise<void> | undefined
  #db: Kysely<Database> | undefined

  readonly #lockTimeoutMs: number
  readonly #busyTimeoutMs: number

  constructor(handle: SqliteDatabase.Database) {
    this.#handle = handle
    // How long a batch may wait for the write lock: as long as any other statement on this connection.
    this.#busyTimeoutMs = Number(handle.pragma('busy_timeout', { simple: true }))
    this.#lockTimeoutMs = this.#busyTimeoutMs
  }

  /** The Kysely instance whose connection the batches run on (its mutex keeps transactions apart). */
  attach(db: Kysely<Database>): void {
    this.#db = db
  }

  /** The batch the running transaction belongs to; valid between begin and commit. */
  get currentBatch(): Promise<void> | undefined {
    return this.#batch?.committed
  }

  async begin(): Promise<void> {
    if (!this.#batch) {
      await this.#takeWriteLock()
      this.#batch = newBatch()
    }
    this.#handle.exec(`savepoint ${SAVEPOINT}`)
  }

  /**
   * BEGIN IMMEDIATE takes the write lock now, so a batch never fails later for a lock another process holds.
   * While another process (or another store on the same file in this process) holds it, the attempt is
   * repeated on timers rather than in SQLite's busy handler, which would stop this process's event loop (and
   * every request in it) for as long as it waits, and would never let a holder in this same process commit.
   */
  async #takeWriteLock(): Promise<void> {
    // The monotonic clock: a step of the wall clock must neither end the wait at once nor stretch it by the step.
    const deadline = performance.now() + this.#lockTimeoutMs
    for (let delayMs = 1; ; delayMs = Math.min(delayMs * 2, MAX_LOCK_RETRY_DELAY_MS)) {
      const busy = this.#tryBeginImmediate()
      if (busy === undefined) return
      if (performance.now() >= deadline) throw busy
      await new Promise((resolve) => setTimeout(resolve, delayMs))
    }
  }

  /**
   * BEGIN IMMEDIATE without SQLite's busy wait: undefined once begun, the SQLITE_BUSY error while another connection
   * holds the lock.
   */
  #tryBeginImmediate(): Error | undefined {
    this.#handle.pragma('busy_timeout = 0')
    try {
      this.#handle.exec('begin immediate')
      return undefined
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY') return error as Error
      throw error
    } finally {
      this.#handle.pragma(`busy_timeout = ${this.#busyTimeoutMs}`)
    }
  }

  commit(): void {
    this.#handle.exec(`release ${SAVEPOINT}`)
    this.#batchSize++
    this.#scheduleFlush()
  }

  rollback(): void {
    this.#handle.exec(`rollback to ${SAVEPOINT}`)
    this.#handle.exec(`release ${SAVEPOINT}`)
    this.#scheduleFlush()
  }

  /**
   * Resolves once the flush scheduled so far has run: the store closes only after it, or a flush scheduled by a
   * transaction that rolled back (which nobody awaits) would run on a destroyed connection.
   */
  async settle(): Promise<void> {
    await this.#scheduledFlush
  }

  #scheduleFlush(): void {
    this.#scheduledFlush ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        this.#scheduledFlush = undefined
        resolve(this.#flush())
      })
    })
  }

  async #flush(): Promise<void> {
    if (!this.#db) throw new Error('GroupCommit is not attached to a Kysely instance')
    // Holding the connection guarantees that no transaction is half-way through its savepoint.
    await this.#db.connection().execute(async () => {
      const batch = this.#batch
      if (!batch) return
      const size = this.#batchSize
      this.#batch = undefined
      this.#batchSize = 0
      try {
        this.#handle.exec('commit')
        this.stats.commits++
        this.stats.transactions += size
        batch.resolve()
      } catch (error) {
        if (this.#handle.inTransaction) this.#handle.exec('rollback')
        batch.reject(error)
      }
    })
  }
}

class GroupCommitDriver extends SqliteDriver {
  readonly #groupCommit: GroupCommit

  constructor(config: SqliteDialectConfig, groupCommit: GroupCommit) {
    super(config)
    this.#groupCommit = groupCommit
  }

  override async beginTransaction(): Promise<void> {
    await this.#groupCommit.begin()
  }

  override async commitTransaction(): Promise<void> {
    this.#groupCommit.commit()
  }

  override async rollbackTransaction(): Promise<void> {
    this.#groupCommit.rollback()
  }
}

/** Kysely's SQLite dialect with transactions turned into savepoints of group-committed batches. */
export class GroupCommitSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig
  readonly #groupCommit: GroupCommit

  constructor(config: SqliteDialectConfig, groupCommit: GroupCommit) {
    super(config)
    this.#config = config
    this.#groupCommit = groupCommit
  }

  override createDriver(): Driver {
    return new GroupCommitDriver(this.#config, this.#groupCommit)
  }
}
