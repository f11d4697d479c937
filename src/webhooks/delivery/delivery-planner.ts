// Which held deliveries to start, and which endpoints may be claimed for: the deliverer's decisions, apart from
// its timers and its database, so that they can be tested on their own (delivery-worker.ts carries them out).
// Fair delivery: places are shared among the endpoints with work, taking turns, and so is what a claim may hold;
// an endpoint whose attempts time out loses places (half at each time-out, down to one) until it answers again;
// endpoints not known to answer hold at most half of the places together, beyond one first attempt each of the
// endpoints not heard from yet: however many endpoints hang, the ones that answer always find places.
import { EndpointHealth, type ThrottledEndpoint } from './endpoint-health.js'

export interface PlannedDelivery {
  id: number
  endpointId: number
  /** Epoch milliseconds. */
  leaseEndsAt: number
}

export interface PlannerSettings {
  concurrency: number
  concurrencyPerEndpoint: number
  attemptTimeoutMs: number
  leaseMs: number
  /** While the API is busy, attempts start at most this often, all endpoints together (taking turns). */
  busyIntervalMs: number
}

export interface Plan<D extends PlannedDelivery> {
  start: D[]
  /** Held too long to be attempted within their lease: to give back, for anyone to take. */
  giveBack: D[]
  /** When to plan again because the busy pace held starts back (epoch milliseconds). */
  nextAt: number | undefined
}

/** Deliveries held per place (claimed ahead of their attempt), so that places need not wait for a claim's commit. */
export const CLAIM_AHEAD = 8
/**
 * A held delivery starts only if its lease outlasts an attempt by this much (the outcome must be recorded in time),
 * or by half the lease's excess over the attempt time-out, when that is less.
 */
const LEASE_MARGIN_MS = 2000

export class DeliveryPlanner<D extends PlannedDelivery> {
  readonly #settings: PlannerSettings
  readonly health: EndpointHealth
  /** Held deliveries waiting for a place, per endpoint, in the order endpoints take turns. */
  readonly #queued = new Map<number, D[]>()
  /** Deliveries held (queued or running), and running, per endpoint. */
  readonly #held = new Map<number, number>()
  readonly #running = new Map<number, number>()
  #heldTotal = 0
  #runningTotal = 0
  /** Deliveries running for endpoints that were not known to answer when they started. */
  readonly #runningUnproven = new Set<number>()
  /** When the last attempt began while the API was busy (epoch milliseconds): those are spaced. */
  #lastBusyStart = Number.NEGATIVE_INFINITY

  constructor(settings: PlannerSettings) {
    this.#settings = settings
    this.health = new EndpointHealth(settings.concurrencyPerEndpoint)
  }

  get heldTotal(): number {
    return this.#heldTotal
  }

  get runningTotal(): number {
    return this.#runningTotal
  }

  hold(delivery: D): void {
    const queue = this.#queued.get(delivery.endpointId)
    if (queue) queue.push(delivery)
    else this.#queued.set(delivery.endpointId, [delivery])
    add(this.#held, delivery.endpointId, 1)
    this.#heldTotal++
  }

  held(endpointId: number): number {
    return this.#held.get(endpointId) ?? 0
  }

  /**
   * Deliveries this endpoint may hold: its places (within its share), claimed ahead; a throttled one, its
   * places only. So that the endpoints that hang cannot fill what this instance may hold either.
   */
  allowance(endpointId: number): number {
    const places = this.health.places(endpointId)
    if (places < this.#settings.concurrencyPerEndpoint) return places
    return Math.min(places, this.#share()) * CLAIM_AHEAD
  }

  /** Per endpoint with something held or withheld, how many of its claimable deliveries are not free. */
  notFree(): Map<number, number> {
    const most = this.#settings.concurrencyPerEndpoint * CLAIM_AHEAD
    const taken = new Map<number, number>()
    for (const endpointId of new Set([...this.#held.keys(), ...this.health.throttled().map((e) => e.endpointId)]))
      taken.set(endpointId, Math.min(most, (this.#held.get(endpointId) ?? 0) + most - this.allowance(endpointId)))
    return taken
  }

  /** The endpoints of which this instance holds all it may: a claim could take nothing of theirs. */
  fullEndpoints(): number[] {
    return [...this.#held].filter(([id, held]) => held >= this.allowance(id)).map(([id]) => id)
  }

  /** Every queued delivery, taken out (to give back on stop). */
  drain(): D[] {
    const all = [...this.#queued.values()].flat()
    this.#queued.clear()
    for (const delivery of all) this.#unhold(delivery.endpointId)
    return all
  }

  /** An attempt planned by `plan` ended: `answered` false for a time-out, undefined when it was abandoned. */
  ended({ id, endpointId }: D, answered: boolean | undefined, now: number): void {
    this.#runningUnproven.delete(id)
    add(this.#running, endpointId, -1)
    this.#runningTotal--
    this.#unhold(endpointId)
    if (answered !== undefined) this.health.record(endpointId, answered, now)
  }

  /**
   * What to start now: endpoints take turns, one start each per round, within their places (one each while
   * the API is busy, and then one start per busy interval in all) and the instance's; deliveries whose lease
   * would run out during the attempt are given back instead.
   */
  plan(now: number, busy: boolean): Plan<D> {
    const plan: Plan<D> = { start: [], giveBack: [], nextAt: undefined }
    const { busyIntervalMs } = this.#settings
    if (busy && this.#lastBusyStart + busyIntervalMs > now) {
      if (this.#queued.size > 0) plan.nextAt = this.#lastBusyStart + busyIntervalMs
      return plan
    }
    const share = this.#share()
    let started = true
    while (started && this.#runningTotal < this.#settings.concurrency) {
      started = false
      for (const endpointId of [...this.#queued.keys()]) {
        if (this.#runningTotal >= this.#settings.concurrency) break
        if (!this.#startOne(endpointId, busy ? 1 : share, now, plan)) continue
        started = true
        if (busy) {
          this.#lastBusyStart = now
          if (this.#queued.size > 0) plan.nextAt = now + busyIntervalMs
          return plan
        }
      }
    }
    this.#giveBackExcess(plan)
    return plan
  }

  /** What an endpoint holds beyond its allowance (its places shrank) goes back, for any instance to take. */
  #giveBackExcess(plan: Plan<D>): void {
    for (const [endpointId, queue] of this.#queued) {
      while (queue.length > 0 && this.held(endpointId) > this.allowance(endpointId)) {
        plan.giveBack.push(queue.pop() as D)
        this.#unhold(endpointId)
      }
      if (queue.length === 0) this.#queued.delete(endpointId)
    }
  }

  /** Places per endpoint with work: the instance's, shared. */
  #share(): number {
    return Math.max(1, Math.floor(this.#settings.concurrency / Math.max(1, this.#endpointsWithWork())))
  }

  /** Starts the next startable delivery of the endpoint, if it has a free place; then it goes last in turn. */
  #startOne(endpointId: number, share: number, now: number, plan: Plan<D>): boolean {
    const queue = this.#queued.get(endpointId) ?? []
    const running = this.#running.get(endpointId) ?? 0
    // An endpoint not heard from yet gets one first attempt outside the half kept for endpoints that answer.
    const unproven = !this.health.answers(endpointId) && !(running === 0 && !this.health.heard(endpointId))
    if (running >= Math.min(share, this.health.places(endpointId))) return false
    if (unproven && this.#runningUnproven.size >= Math.ceil(this.#settings.concurrency / 2)) return false
    const { attemptTimeoutMs, leaseMs } = this.#settings
    const needed = attemptTimeoutMs + Math.min(LEASE_MARGIN_MS, (leaseMs - attemptTimeoutMs) / 2)
    let delivery = queue.shift()
    // Too late to attempt and record within the lease: another holder could take it meanwhile.
    while (delivery && delivery.leaseEndsAt - now < needed) {
      plan.giveBack.push(delivery)
      this.#unhold(endpointId)
      delivery = queue.shift()
    }
    this.#queued.delete(endpointId)
    if (queue.length > 0) this.#queued.set(endpointId, queue)
    if (!delivery) return false
    plan.start.push(delivery)
    add(this.#running, endpointId, 1)
    this.#runningTotal++
    if (unproven) this.#runningUnproven.add(delivery.id)
    return true
  }

  #endpointsWithWork(): number {
    return new Set([...this.#queued.keys(), ...this.#running.keys()]).size
  }

  #unhold(endpointId: number): void {
    add(this.#held, endpointId, -1)
    this.#heldTotal--
  }
}

/** Adds `delta` to a count kept per endpoint, dropping it at zero. */
function add(counts: Map<number, number>, endpointId: number, delta: number): void {
  const count = (counts.get(endpointId) ?? 0) + delta
  if (count > 0) counts.set(endpointId, count)
  else counts.delete(endpointId)
}

export type { ThrottledEndpoint }
