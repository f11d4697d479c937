// What the deliverer (delivery-worker.ts) is given: where it reads and writes, how it sends, and its pace.
import type { DataAccess } from '../../db/database.js'
import type { SecretBox } from '../secret-box.js'
import type { Sender } from './sender.js'
import type { DeliveryObserver } from './webhook-metrics.js'

export interface DeliveryWorkerSettings {
  /**
   * Store.bookkeeping: reads and transactions apart from the API's, none of which need be durable before it resolves.
   */
  data: DataAccess
  /** Signs and makes the requests (on a thread of its own, in production). */
  sender: Sender
  /** Opens the endpoints' sealed secrets (once the key is at hand). */
  secrets: () => Promise<SecretBox>
  retryScheduleMs: readonly number[]
  leaseMs: number
  attemptTimeoutMs: number
  pollIntervalMs: number
  /** Looks at most this often while wake-ups keep coming (a flood of commits): each look then serves many. */
  batchIntervalMs: number
  /** While the API is busy, attempts start at most this often, all endpoints together (taking turns). */
  busyIntervalMs: number
  concurrency: number
  concurrencyPerEndpoint: number
  /**
   * True while the API is busy (many requests in progress): each endpoint then gets one place, and attempts
   * start one per busy interval in all, so that the deliveries' work (a delivery costs the machine several times
   * what a create does) takes a bounded share from the clients, however many endpoints there are.
   */
  apiBusy: () => boolean
  shutdownWaitMs: number
  observer: DeliveryObserver
  onError: (error: unknown, what: string) => void
}
