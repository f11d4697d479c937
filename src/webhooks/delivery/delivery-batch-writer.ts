// The deliverer's writes after a claim, made together: attempts end one by one, and a transaction each would
// cost the database more than the attempts. Starts are written at once (an attempt is sent only once its start
// is recorded, so that only attempts really sent count); outcomes and leases given back wait for the batch
// interval, since nothing waits for them but the leases.
// A batch the database cannot take now (unavailable: connection lost, lock not available, serialization failure)
// is kept and written again later. One it refuses otherwise, for a value in one of its records, is written again
// a record per transaction, so that one poisoned record cannot hold back every other one for good.
import type { DataAccess } from '../../db/database.js'
import { rootCause } from '../../db/database-errors.js'
import { commitDurably } from '../../db/durable-commit.js'
import { isDatabaseUnavailable } from '../../db/unavailable.js'
import {
  recordAttempts,
  recordStarts,
  releaseDeliveries,
  type AttemptRecord,
  type AttemptStart,
  type ClaimedStart,
} from './delivery-outcome.repository.js'

export interface BatchWriterSettings {
  /** Store.bookkeeping: see delivery-worker.ts. */
  data: DataAccess
  leaseToken: string
  batchIntervalMs: number
  /** After a failed write, the next try waits this long. */
  retryMs: number
  /** A delivery attempted by this instance ended for good. */
  finished: (status: 'succeeded' | 'failed') => void
  onError: (error: unknown, what: string) => void
}

interface PendingStart extends ClaimedStart {
  resolve: (started: boolean) => void
}

type Released = AttemptStart & { started: boolean }

/** What one write holds: the whole batch, or, after the database refused it, a single item of it. */
interface Batch {
  starts: PendingStart[]
  records: AttemptRecord[]
  released: Released[]
}

/**
 * What the database said of a write it refused, without the rest of its error: PostgreSQL's detail (the failing
 * row) and context (the parameters) may quote the receiver's answer, which no log shows. Its message quotes at
 * most a number that a column of numbers could not take.
 */
function refusal(error: unknown): Error {
  const cause = rootCause(error)
  return new Error(typeof cause.code === 'string' ? `${cause.message} (${cause.code})` : cause.message)
}

export class DeliveryBatchWriter {
  readonly #settings: BatchWriterSettings
  #starts: PendingStart[] = []
  #records: AttemptRecord[] = []
  #released: Released[] = []
  #flushScheduled = false
  #startFlushQueued = false
  #flushing: Promise<void> = Promise.resolve()
  #stopping = false

  constructor(settings: BatchWriterSettings) {
    this.#settings = settings
  }

  /**
   * Records that the attempt is about to be sent; resolves true once that is written, false when the lease
   * was lost meanwhile, the endpoint is no longer as the claim read it (see recordStarts), or the write failed:
   * the attempt must then not be sent.
   */
  started(start: ClaimedStart): Promise<boolean> {
    return new Promise((resolve) => {
      this.#starts.push({ ...start, resolve })
      if (this.#startFlushQueued) return
      // Whatever starts come while the previous write runs go together in the next one.
      this.#startFlushQueued = true
      void this.flush()
    })
  }

  record(record: AttemptRecord): void {
    this.#records.push(record)
    this.#scheduleFlush()
  }

  /** Gives a lease back: due again at once; a started attempt (abandoned unfinished) is not counted. */
  release(start: AttemptStart, started: boolean): void {
    this.#released.push({ ...start, started })
    this.#scheduleFlush()
  }

  /** Writes everything waiting, after whatever write is in progress. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushOnce())
    return this.#flushing
  }

  /** No more delayed writes: the caller's last flush writes what is left. */
  stop(): void {
    this.#stopping = true
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return
    this.#flushScheduled = true
    setTimeout(() => {
      this.#flushScheduled = false
      void this.flush()
    }, this.#settings.batchIntervalMs).unref()
  }

  async #flushOnce(): Promise<void> {
    const batch: Batch = { starts: this.#starts, records: this.#records, released: this.#released }
    this.#startFlushQueued = false
    if (batch.starts.length === 0 && batch.records.length === 0 && batch.released.length === 0) return
    this.#starts = []
    this.#records = []
    this.#released = []
    let started: number[] = []
    try {
      started = await this.#write(batch)
    } catch (error) {
      if (isDatabaseUnavailable(error)) this.#keep([batch], error)
      else started = await this.#writeOneByOne(batch)
    }
    const ids = new Set(started)
    for (const start of batch.starts) start.resolve(ids.has(start.deliveryId))
  }

  /** Writes in one transaction; returns the deliveries whose start was recorded. */
  async #write({ starts, records, released }: Batch): Promise<number[]> {
    const { data, leaseToken } = this.#settings
    const { started, recorded } = await data.transaction(async (trx) => {
      // A start is the record that a request is about to leave: lost in a crash of the database server after
      // the request was sent, the delivery would be claimed again as if never attempted, sent a second time,
      // and the log would show one attempt where the receiver had two. Written durably (with the claim before it).
      if (starts.length > 0) await commitDurably(trx)
      const started = await recordStarts(trx, leaseToken, starts)
      await releaseDeliveries(trx, leaseToken, released, Date.now())
      return { started, recorded: new Set(await recordAttempts(trx, leaseToken, records, new Date().toISOString())) }
    })
    for (const record of records) {
      if (recorded.has(record.deliveryId) && record.next.status !== 'pending')
        this.#settings.finished(record.next.status)
    }
    return started
  }

  /**
   * Kept for the next flush; should the outage outlast the leases, the deliveries are simply attempted again.
   * Starts are not kept: those attempts are not sent, and their leases run out.
   */
  #keep(items: readonly Batch[], error: unknown): void {
    this.#records.unshift(...items.flatMap((item) => item.records))
    this.#released.unshift(...items.flatMap((item) => item.released))
    this.#settings.onError(error, 'could not record webhook delivery attempts')
    if (!this.#stopping) setTimeout(() => this.#scheduleFlush(), this.#settings.retryMs).unref()
  }

  /**
   * The database refused the batch, and not for being unavailable: written again an item per transaction, in the
   * batch's order, so that all it can take is written. An item it refuses on its own too is reported and dropped,
   * not retried. What follows is what follows an instance that dies holding the lease (delivery-claim.repository.ts):
   * the lease runs out, the delivery is due again (an attempt whose start was written is logged `interrupted` by
   * the claim that takes it), and it is attempted again: at least once, as promised. Should the database become
   * unavailable meanwhile, what is left is kept as a batch is.
   */
  async #writeOneByOne({ starts, records, released }: Batch): Promise<number[]> {
    const items: (Batch & { of: AttemptStart })[] = [
      ...starts.map((start) => ({ of: start, starts: [start], records: [], released: [] })),
      ...released.map((release) => ({ of: release, starts: [], records: [], released: [release] })),
      ...records.map((record) => ({ of: record, starts: [], records: [record], released: [] })),
    ]
    const started: number[] = []
    for (const [index, item] of items.entries()) {
      try {
        started.push(...(await this.#write(item)))
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          this.#keep(items.slice(index), error)
          break
        }
        this.#settings.onError(
          refusal(error),
          `the database refused the record of webhook delivery ${item.of.deliveryId}, attempt ${item.of.attempt}: ` +
            'dropped; the delivery is due again once its lease runs out',
        )
      }
    }
    return started
  }
}
