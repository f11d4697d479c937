// One reader following the feed from a position: a long poll, or an open stream. It reads the store until it
// has caught up, then takes what the hub delivers, so that many followers cost one query per commit, not one
// each. Correctness rests on the store's reads alone: the hub's deliveries are used only once a read that
// started after they began to be kept has looked at everything readable (so they continue it without a gap).
import type { EventType } from '../db/database.js'
import type { FeedEvent } from './event.mapper.js'
import type { EventHub, HubFollower } from './event-hub.js'

export interface FeedPage {
  /** Matching events after the position asked for, ascending. */
  events: FeedEvent[]
  /** Where to continue: no matching event at or below it is left to read. */
  position: number
  /** True when everything readable after the position asked for was looked at. */
  complete: boolean
}

/** A read of the store: the feed's page after `after` (throws when `after` is older than the events kept). */
export type FeedRead = (after: number, limit: number) => Promise<FeedPage>

/** Delivered events a follower keeps, at most, before it drops them and reads the store instead (a slow client). */
const MAX_KEPT = 10_000

export class FeedFollower implements HubFollower {
  readonly #hub: EventHub
  readonly #read: FeedRead
  readonly #types: ReadonlySet<EventType> | undefined
  #position: number
  #caughtUp = false
  #kept: FeedEvent[] = []
  #keptThrough = 0
  /** Changes whenever kept deliveries are dropped: a read begun before that cannot make the follower caught up. */
  #epoch = 0
  #closed = false
  #wake: (() => void) | undefined
  #hubClosed!: () => void
  /** Settles when the hub closes (the service shuts down), never when the follower is only stopped. */
  readonly shutDown = new Promise<void>((resolve) => (this.#hubClosed = resolve))

  constructor(hub: EventHub, read: FeedRead, after: number, types: readonly EventType[] | undefined) {
    this.#hub = hub
    this.#read = read
    this.#position = after
    this.#types = types && new Set(types)
  }

  get position(): number {
    return this.#position
  }

  /** True once stopped, or the hub closed. */
  get stopped(): boolean {
    return this.#closed
  }

  /** Joins the hub: deliveries are kept from now on. Call before the first `next`. */
  async start(): Promise<void> {
    await this.#hub.join(this)
  }

  stop(): void {
    this.#hub.leave(this)
    this.#closed = true
    this.#wake?.()
  }

  /**
   * The next matching events (at most `limit`), as soon as there are any; an empty page once `until` settles,
   * or the follower is stopped or the hub closes. An incomplete page (many events of other types looked at) is
   * returned at once, so that one call never reads without bound.
   */
  async next(limit: number, until: Promise<unknown>): Promise<FeedPage> {
    for (;;) {
      if (!this.#caughtUp) {
        const epoch = this.#epoch
        const page = await this.#read(this.#position, limit)
        this.#position = page.position
        if (page.complete && epoch === this.#epoch) {
          this.#caughtUp = true
          this.#kept = this.#kept.filter((event) => event.id > this.#position)
        }
        if (page.events.length > 0 || !page.complete) return page
      }
      if (this.#caughtUp) {
        const events = this.#take(limit)
        if (events.length > 0) return { events, position: this.#position, complete: true }
      }
      if (this.#closed) return { events: [], position: this.#position, complete: true }
      if (this.#caughtUp && !(await this.#waitForDelivery(until)))
        return { events: [], position: this.#position, complete: true }
    }
  }

  deliver(events: readonly FeedEvent[], through: number): void {
    this.#kept.push(...events)
    this.#keptThrough = through
    if (this.#kept.length > MAX_KEPT) {
      // A client that reads slower than events come: read the store again from where it is, instead of holding
      // ever more events for it.
      this.#kept = []
      this.#caughtUp = false
      this.#epoch++
    }
    this.#wake?.()
  }

  rewound(): void {
    // Nothing kept, and no horizon of the old deliveries, may move the position once the store is read again.
    this.#kept = []
    this.#keptThrough = 0
    this.#caughtUp = false
    this.#epoch++
    this.#wake?.()
  }

  close(): void {
    this.#hubClosed()
    this.#closed = true
    this.#wake?.()
  }

  /** Matching kept events after the position, at most `limit`; moves the position past what was looked at. */
  #take(limit: number): FeedEvent[] {
    const taken: FeedEvent[] = []
    for (const event of this.#kept) {
      if (event.id <= this.#position || (this.#types && !this.#types.has(event.type))) continue
      taken.push(event)
      if (taken.length === limit) break
    }
    const last = taken.at(-1)
    if (taken.length === limit && last) {
      this.#position = last.id
      this.#kept = this.#kept.filter((event) => event.id > last.id)
    } else {
      this.#position = Math.max(this.#position, this.#keptThrough)
      this.#kept = []
    }
    return taken
  }

  /** True when something was delivered (or the follower must stop); false when `until` settled first. */
  async #waitForDelivery(until: Promise<unknown>): Promise<boolean> {
    let timedOut = false
    await Promise.race([
      new Promise<void>((resolve) => (this.#wake = resolve)),
      until.then(
        () => (timedOut = true),
        () => (timedOut = true),
      ),
    ])
    this.#wake = undefined
    return !timedOut
  }
}
