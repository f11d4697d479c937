// Expired idempotency keys are deleted in the background, a bounded batch at a time, in bursts
// (purge-in-bursts.ts), never on a request's path. Correctness does not depend on it (an expired key is treated as
// absent whether or not it is still stored); it only keeps the table from growing. Every instance purges; they
// delete the same rows harmlessly.
import type { BackgroundTimer } from '../db/background-timer.js'
import type { DataAccess } from '../db/database.js'
import { purgeInBursts, startPurge, type Bursts } from '../db/purge-in-bursts.js'
import { deleteExpiredKeys } from './idempotency.repository.js'

/** Deletes keys that expired before `now`; returns how many it deleted. */
export async function purgeExpiredKeys(
  data: DataAccess,
  now = new Date(),
  bursts: Partial<Bursts> = {},
): Promise<number> {
  return purgeInBursts(
    (batchSize) => data.transaction((trx) => deleteExpiredKeys(trx, now.toISOString(), batchSize)),
    bursts,
  )
}

export function startPurgeTimer(data: DataAccess, onError: (error: unknown) => void): BackgroundTimer {
  return startPurge((stop) => purgeExpiredKeys(data, new Date(), { stop }), onError)
}
