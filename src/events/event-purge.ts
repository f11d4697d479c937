// Events older than the retention period are deleted in the background, a bounded batch at a time, oldest id
// first, and the purged range is recorded (event_retention), so that a reader whose position fell into it learns
// it (410) instead of silently missing events. Every instance purges; they delete the same rows harmlessly.
import { setTimeout as pause } from 'node:timers/promises'
import { startBackgroundTimer, type BackgroundTimer } from '../db/background-timer.js'
import type { DataAccess, Writer } from '../db/database.js'
import { oldestEvents, purgeEventsThrough } from './event.repository.js'

const PURGE_INTERVAL_MS = 5 * 60_000
/** Small enough that one purge transaction never holds the write lock for long. */
const PURGE_BATCH_SIZE = 500
/** Batches in one burst: a backlog is worked off in bursts with pauses between them rather than all at once. */
const PURGE_MAX_BATCHES = 20
/**
 * Between two bursts of a backlog, so that writers get the lock in between. A backlog waits for no later run: one
 * burst per run (10,000 events every five minutes) is less than a shop writing 34 events a second adds, and the
 * oldest events would then never be deleted however long the service ran.
 */
const BACKLOG_PAUSE_MS = 1000

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
 * Deletes the events that are older than the retention period at `now`, in bursts of `maxBatches` batches with
 * `pauseMs` between them, until none is left or `stop` aborts; returns how many it deleted. Only a run of old
 * events from the oldest on is deleted (ids ascend with time, roughly): the purged range is always "every id up
 * to N".
 */
export async function purgeOldEvents(
  { data, retentionDays, neededAfter }: EventPurgeSettings,
  now = new Date(),
  maxBatches = PURGE_MAX_BATCHES,
  pauseMs = BACKLOG_PAUSE_MS,
  stop?: AbortSignal,
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000).toISOString()
  let total = 0
  for (let batch = 0; !stop?.aborted; batch++) {
    if (batch > 0 && batch % maxBatches === 0) {
      // Shutdown does not wait for the pause: the rest is left for the next run, on whichever instance.
      const paused = await pause(pauseMs, true, { signal: stop, ref: false }).catch(() => false)
      if (!paused) break
    }
    const deleted = await data.transaction(async (trx) => {
      const candidates = await oldestEvents(trx, PURGE_BATCH_SIZE)
      const needed = await neededAfter?.(trx)
      const firstKept = candidates.findIndex(
        (event) => !(event.occurred_at < cutoff) || (needed !== undefined && Number(event.id) > needed),
      )
      const last = candidates[(firstKept === -1 ? candidates.length : firstKept) - 1]
      return last ? purgeEventsThrough(trx, Number(last.id)) : 0
    })
    total += deleted
    if (deleted < PURGE_BATCH_SIZE) break
  }
  return total
}

export function startEventPurge(settings: EventPurgeSettings, onError: (error: unknown) => void): BackgroundTimer {
  const stopping = new AbortController()
  const timer = startBackgroundTimer(
    () => purgeOldEvents(settings, new Date(), PURGE_MAX_BATCHES, BACKLOG_PAUSE_MS, stopping.signal),
    PURGE_INTERVAL_MS,
    onError,
  )
  return {
    stop() {
      stopping.abort()
      return timer.stop()
    },
  }
}
