// Finished deliveries (and their attempts) older than the retention period, and those of deleted endpoints, are
// deleted in the background, a bounded batch at a time, in bursts (purge-in-bursts.ts). Every instance purges;
// they delete the same rows harmlessly.
import type { BackgroundTimer } from '../../db/background-timer.js'
import type { DataAccess } from '../../db/database.js'
import { purgeInBursts, startPurge, type Bursts } from '../../db/purge-in-bursts.js'
import { purgeDeliveries } from './delivery.repository.js'

export async function purgeOldDeliveries(
  data: DataAccess,
  retentionDays: number,
  now = Date.now(),
  bursts: Partial<Bursts> = {},
): Promise<number> {
  const cutoff = new Date(now - retentionDays * 86_400_000).toISOString()
  return purgeInBursts((batchSize) => data.transaction((trx) => purgeDeliveries(trx, cutoff, batchSize)), bursts)
}

export function startDeliveryPurge(
  data: DataAccess,
  retentionDays: number,
  onError: (error: unknown) => void,
): BackgroundTimer {
  return startPurge((stop) => purgeOldDeliveries(data, retentionDays, Date.now(), { stop }), onError)
}
