// The deliverer's writes after a claim, made together: attempts end one by one, and a transaction each would
// cost the database more than the attempts. Starts are written at once (an attempt is sent only once its start
// is recorded, so that only attempts really sent count); outcomes and leases given back wait for the batch
// interval, since nothing waits for them but the leases.
import type { DataAccess } from '../db/database.js'
import {
  recordAttempts,
  recordStarts,
  releaseDeliveries,
  type AttemptRecord,
  type AttemptStart,
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

interface PendingStart extends AttemptStart {
  resolve: (started: boolean) => void
}

export class DeliveryBatchWriter {
  readonly #settings: BatchWriterSettings
  #starts: PendingStart[] = []
  #records: AttemptRecord[] = []
  #released: (AttemptStart & { started: boolean })[] = []
  #flushScheduled = false
  #startFlushQueued = false
  #flushing: Promise<void> = Promise.resolve()
  #stopping = false

  constructor(settings: BatchWriterSettings) {
    this.#settings = settings
  }

  /**
   * Records that the attempt is about to be sent; resolves true once that is written, false when the lease
   * was lost meanwhile (or the write failed): the attempt must then not be sent.
   */
  started(start: AttemptStart): Promise<boolean> {
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
    const starts = this.#starts
    const records = this.#records
    const released = this.#released
    this.#startFlushQueued = false
    if (starts.length === 0 && records.length === 0 && released.length === 0) return
    this.#starts = []
    this.#records = []
    this.#released = []
    const { data, leaseToken } = this.#settings
    let started = new Set<number>()
    try {
      const recorded = await data.transaction(async (trx) => {
        started = new Set(await recordStarts(trx, leaseToken, starts))
        await releaseDeliveries(trx, leaseToken, released, Date.now())
        return recordAttempts(trx, leaseToken, records, new Date().toISOString())
      })
      const ids = new Set(recorded)
      for (const record of records) {
        if (ids.has(record.deliveryId) && record.next.status !== 'pending') this.#settings.finished(record.next.status)
      }
    } catch (error) {
      // Kept for the next flush; should the outage outlast the leases, the deliveries are simply attempted again.
      // Starts are not kept: those attempts are not sent, and their leases run out.
      this.#records.unshift(...records)
      this.#released.unshift(...released)
      this.#settings.onError(error, 'could not record webhook delivery attempts')
      if (!this.#stopping) setTimeout(() => this.#scheduleFlush(), this.#settings.retryMs).unref()
    }
    for (const start of starts) start.resolve(started.has(start.deliveryId))
  }
}
