// One look of the deliverer (delivery-worker.ts): what is due, fan-out of new events where endpoints have run
// out of due work, and a claim of due deliveries where this instance has room. And, now and then, what it
// remembers of endpoints deleted meanwhile is dropped (deleted-endpoints.ts).
import type { DataAccess } from '../../db/database.js'
import type { DeletedEndpoints } from './deleted-endpoints.js'
import { claimDueDeliveries, type ClaimedDelivery } from './delivery-claim.repository.js'
import { dueState } from './delivery.repository.js'
import { fanOutEvents } from './fan-out.repository.js'

/** Events fanned out per transaction, at most. */
const FAN_OUT_BATCH = 1000

export interface LookSettings {
  /** Store.bookkeeping (see delivery-worker.ts). */
  data: DataAccess
  leaseMs: number
  leaseToken: string
  /** Deliveries one endpoint may have claimed at most (its places, claimed ahead). */
  perEndpoint: number
  deletedEndpoints: DeletedEndpoints
}

/** What this instance holds, as the planner sees it (delivery-planner.ts). */
export interface Holdings {
  heldTotal: number
  fullEndpoints(): number[]
  notFree(): Map<number, number>
}

export interface Look {
  claimed: ClaimedDelivery[]
  /** When the claim's leases began (epoch milliseconds). */
  claimedAt: number
  /** Whether to look again at once: a fan-out or a claim may have left more behind. */
  again: boolean
  /** When something not yet due becomes claimable, if anything. */
  wakeAt: number | undefined
  endpointsEnabled: boolean
  earliestDue: number | undefined
}

export async function lookForWork(settings: LookSettings, holdings: Holdings, limit: number): Promise<Look> {
  const { data } = settings
  await settings.deletedEndpoints.forget(data.read)
  // Endpoints whose share this instance holds whole are left out: during a flood of commits to a busy endpoint,
  // each look would otherwise run a claim that takes nothing. An attempt that ends wakes the worker for them.
  const state = await dueState(data.read, Date.now(), holdings.fullEndpoints())
  const look: Look = {
    claimed: [],
    claimedAt: Date.now(),
    again: false,
    wakeAt: undefined,
    endpointsEnabled: state.endpointsEnabled,
    earliestDue: state.earliestDue,
  }
  let claimable = state.earliestClaimable
  // The feed is the queue: deliveries are made only for endpoints that have run out of due ones, so that a
  // backlog stays events (written once, by their writers) rather than rows made ahead of their attempts.
  if (state.eventsWaiting && state.endpointsWithoutDueWork > 0) {
    const made = await data.transaction((trx) => fanOutEvents(trx, FAN_OUT_BATCH))
    if (made.deliveries > 0) claimable = Math.min(claimable ?? Date.now(), Date.now())
    look.again = made.more
  }
  const room = limit - holdings.heldTotal
  const now = Date.now()
  if (room <= 0 || claimable === undefined) return look
  if (claimable > now) return { ...look, wakeAt: claimable }
  look.claimedAt = now
  look.claimed = await data.transaction((trx) =>
    claimDueDeliveries(trx, {
      now,
      leaseMs: settings.leaseMs,
      leaseToken: settings.leaseToken,
      total: room,
      perEndpoint: settings.perEndpoint,
      notFree: holdings.notFree(),
    }),
  )
  // A full batch may have left more behind. A short one took all that was due where there was room; the rest
  // waits for an attempt to end (which wakes the worker) or for its time.
  if (look.claimed.length === room) look.again = true
  return look
}
