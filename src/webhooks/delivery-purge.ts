// Finished deliveries (and their attempts) older than the retention period, and those of deleted endpoints, are
// deleted in the background, a bounded batch at a time. Every instance purges; they delete the same rows harmlessly.
import { startBackgroundTimer, type BackgroundTimer } from '../db/background-timer.js'
import type { DataAccess } from '../db/database.js'
import { purgeDeliveries } from './delivery.repository.js'

const PURGE_INTERVAL_MS = 5 * 60_000
/** Small enough that one purge transaction never holds the write lock for long. */
const PURGE_BATCH_SIZE = 500
const PURGE_MAX_BATCHES = 20

export async function purgeOldDeliveries(data: DataAccess, retentionDays: number, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - retentionDays * 86_400_000).toISOString()
  let total = 0
  for (let batch = 0; batch < PURGE_MAX_BATCHES; batch++) {
    const deleted = await data.transaction((trx) => purgeDeliveries(trx, cutoff, PURGE_BATCH_SIZE))
    total += deleted
    if (deleted < PURGE_BATCH_SIZE) break
  }
  return total
}

export function startDeliveryPurge(
  data: DataAccess,
  retentionDays: number,
  onError: (error: unknown) => void,
): BackgroundTimer {
  return startBackgroundTimer(() => purgeOldDeliveries(data, retentionDays), PURGE_INTERVAL_MS, onError)
}
