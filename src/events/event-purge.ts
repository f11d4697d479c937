// Events older than the retention period are deleted in the background, a bounded batch at a time, oldest id
// first, and the purged range is recorded (event_retention), so that a reader whose position fell into it learns
// it (410) instead of silently missing events. Every instance purges; they delete the same rows harmlessly.
import type { BackgroundTimer } from '../db/background-timer.js'
import type { DataAccess, Writer } from '../db/database.js'
import { purgeInBursts, startPurge, type Bursts } from '../db/purge-in-bursts.js'
import { oldestEvents, purgeEventsThrough } from './event.repository.js'

export interface EventPurgeSettings {
  data: DataAccess
  retentionDays: number
  /**
   * The last event others have done with, if they need the ones after it whatever their age (webhooks: the
   * fan-out's backlog, which waits in the event log, and the events of pending deliveries): those are kept.
   */
  neededAfter?: (trx: Writer) => Promise<number | undefined>
}

/**
 * Deletes the events that are older than the retention period at `now`, in bursts (purge-in-bursts.ts) until none
 * is left; returns how many it deleted. Only a run of old events from the oldest on is deleted (ids ascend with
 * time, roughly): the purged range is always "every id up to N".
 */
export async function purgeOldEvents(
  { data, retentionDays, neededAfter }: EventPurgeSettings,
  now = new Date(),
  bursts: Partial<Bursts> = {},
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000).toISOString()
  return purgeInBursts(
    (batchSize) =>
      data.transaction(async (trx) => {
        const candidates = await oldestEvents(trx, batchSize)
        const needed = await neededAfter?.(trx)
        const firstKept = candidates.findIndex(
          (event) => !(event.occurred_at < cutoff) || (needed !== undefined && Number(event.id) > needed),
        )
        const last = candidates[(firstKept === -1 ? candidates.length : firstKept) - 1]
        return last ? purgeEventsThrough(trx, Number(last.id)) : 0
      }),
    bursts,
  )
}

export function startEventPurge(settings: EventPurgeSettings, onError: (error: unknown) => void): BackgroundTimer {
  return startPurge((stop) => purgeOldEvents(settings, new Date(), { stop }), onError)
}
