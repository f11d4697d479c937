// The background purges (events, webhook deliveries, idempotency keys) delete a bounded batch per transaction, so
// that none holds the write lock for long, and work off a backlog in one run: bursts of batches with a pause
// between them, so that writers get the lock in between. One burst per run (every five minutes) would delete less
// than a busy shop adds, and the oldest rows would never go however long the service ran.
import { setTimeout as pause } from 'node:timers/promises'
import { startBackgroundTimer, type BackgroundTimer } from './background-timer.js'

export interface Bursts {
  /** Rows a batch deletes at most; a batch that deletes fewer ends the run. */
  batchSize: number
  batchesPerBurst: number
  pauseMs: number
  /** Shutdown: ends the run between two batches, without waiting out a pause; the rest is left for a later run. */
  stop?: AbortSignal
}

/** Defaults: 500 rows a batch, 20 batches a burst, a second between bursts. */
const PURGE_BURSTS = { batchSize: 500, batchesPerBurst: 20, pauseMs: 1000 } as const

const PURGE_INTERVAL_MS = 5 * 60_000

/**
 * Runs `deleteBatch` (given the batch size; returns how many rows it deleted) until one deletes fewer than a
 * batch; returns the total. `bursts` overrides PURGE_BURSTS.
 */
export async function purgeInBursts(
  deleteBatch: (batchSize: number) => Promise<number>,
  bursts: Partial<Bursts> = {},
): Promise<number> {
  const { batchSize, batchesPerBurst, pauseMs, stop } = { ...PURGE_BURSTS, ...bursts }
  let total = 0
  for (let batch = 0; !stop?.aborted; batch++) {
    if (batch > 0 && batch % batchesPerBurst === 0) {
      const paused = await pause(pauseMs, true, { signal: stop }).catch(() => false)
      if (!paused) break
    }
    const deleted = await deleteBatch(batchSize)
    total += deleted
    if (deleted < batchSize) break
  }
  return total
}

/** Runs `purge` every five minutes or so (startBackgroundTimer); stopping it also ends a run between batches. */
export function startPurge(
  purge: (stop: AbortSignal) => Promise<unknown>,
  onError: (error: unknown) => void,
): BackgroundTimer {
  const stopping = new AbortController()
  const timer = startBackgroundTimer(() => purge(stopping.signal), PURGE_INTERVAL_MS, onError)
  return {
    stop() {
      stopping.abort()
      return timer.stop()
    },
  }
}
