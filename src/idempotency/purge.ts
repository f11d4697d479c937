// Expired idempotency keys are deleted in the background, a bounded batch at a time, never on a request's
// path. Correctness does not depend on it (an expired key is treated as absent whether or not it is still
// stored); it only keeps the table from growing. Every instance purges; they delete the same rows harmlessly.
import { startBackgroundTimer, type BackgroundTimer } from '../db/background-timer.js'
import type { DataAccess } from '../db/database.js'
import { deleteExpiredKeys } from './idempotency.repository.js'

const PURGE_INTERVAL_MS = 5 * 60_000
/** Small enough that one purge transaction never holds the write lock for long. */
const PURGE_BATCH_SIZE = 500
/** Batches per run: a backlog is worked off over several runs rather than in one long burst. */
const PURGE_MAX_BATCHES = 20

/** Deletes keys that expired before `now`, up to `maxBatches` batches; returns how many it deleted. */
export async function purgeExpiredKeys(
  data: DataAccess,
  now = new Date(),
  maxBatches = PURGE_MAX_BATCHES,
): Promise<number> {
  let total = 0
  for (let batch = 0; batch < maxBatches; batch++) {
    const deleted = await data.transaction((trx) => deleteExpiredKeys(trx, now.toISOString(), PURGE_BATCH_SIZE))
    total += deleted
    if (deleted < PURGE_BATCH_SIZE) break
  }
  return total
}

export function startPurgeTimer(data: DataAccess, onError: (error: unknown) => void): BackgroundTimer {
  return startBackgroundTimer(() => purgeExpiredKeys(data), PURGE_INTERVAL_MS, onError)
}
