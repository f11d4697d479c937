// One reader of the event log per instance for everyone waiting on it (long polls, streams). Woken at once when
// events become readable (this instance's commits on SQLite; on PostgreSQL every numbering, this instance's or,
// through a notification, another's) and by a poll while anybody waits, for what no wake-up announced (another
// process on SQLite, a lost notification). Each wake-up costs one query, however many wait: new events are read once
// and handed to every
// follower, which would otherwise each query the store per commit. Nothing here decides what a reader may see:
// the store's reads do (event.repository.ts); the hub only saves queries and time.
import type { FeedEvent } from './event.mapper.js'

export interface HubSource {
  /** Readable events after `after`, ascending, at most `limit`, and the largest id the feed has given out. */
  readAfter(after: number, limit: number): Promise<{ events: FeedEvent[]; newest: number }>
  /** The largest readable id (0 when there is none). */
  newestId(): Promise<number>
  /** A number that changes whenever anyone commits, where the store has one: polls skip the query while it holds. */
  version: (() => Promise<number>) | undefined
}

export interface HubFollower {
  /**
   * New readable events, ascending: together, the deliveries a follower receives cover every readable event after
   * the horizon `join` gave it, without a gap. `through` is the hub's horizon after them.
   */
  deliver(events: readonly FeedEvent[], through: number): void
  /**
   * The store went back before what the hub had delivered (a database restored from an earlier copy, or a
   * failover to a standby that had not received the last commits, under the running service): deliveries start
   * again below the ids the follower has seen, so it must read the store itself again from its own position.
   */
  rewound(): void
  /** The hub is closing (the service shuts down): stop waiting. */
  close(): void
}

export interface HubOptions {
  source: HubSource
  pollIntervalMs: number
  onError: (error: unknown) => void
}

/** Events read per query; more are read at once by the next one. */
const BATCH = 1000

export class EventHub {
  readonly #options: HubOptions
  readonly #followers = new Set<HubFollower>()
  /** Every readable event up to here has been delivered to the followers; undefined while nobody follows. */
  #horizon: number | undefined
  #starting: Promise<number> | undefined
  /** Changes when the hub stops, so that a read started before that delivers nothing after it. */
  #generation = 0
  #reading = false
  #readAgain = false
  #timer: NodeJS.Timeout | undefined
  #lastVersion: number | undefined
  #failing = false
  #closed = false

  constructor(options: HubOptions) {
    this.#options = options
  }

  get followers(): number {
    return this.#followers.size
  }

  /** Adds a follower; resolves with the horizon after which its deliveries begin. */
  async join(follower: HubFollower): Promise<number> {
    if (this.#closed) {
      follower.close()
      return 0
    }
    if (this.#horizon === undefined) {
      // Any newest id read before the follower's own first read is a valid start: followers read after joining.
      this.#starting ??= this.#options.source.newestId().finally(() => (this.#starting = undefined))
      const newest = await this.#starting
      if (this.#closed) {
        follower.close()
        return 0
      }
      if (this.#horizon === undefined) this.#start(newest)
    }
    this.#followers.add(follower)
    return this.#horizon ?? 0
  }

  leave(follower: HubFollower): void {
    this.#followers.delete(follower)
    if (this.#followers.size === 0) this.#stop()
  }

  /** Something may have been committed: read what is new, unless nobody is waiting. */
  wake(): void {
    if (this.#horizon === undefined) return
    if (this.#reading) {
      this.#readAgain = true
      return
    }
    void this.#read()
  }

  /** Shutdown: every follower stops waiting; nobody may join any more. */
  close(): void {
    this.#closed = true
    for (const follower of [...this.#followers]) follower.close()
    this.#followers.clear()
    this.#stop()
  }

  #start(horizon: number): void {
    this.#horizon = horizon
    this.#timer = setInterval(() => void this.#poll(), this.#options.pollIntervalMs)
    this.#timer.unref()
    // Commits made while the horizon was being read woke nobody.
    this.wake()
  }

  #stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
    this.#horizon = undefined
    this.#lastVersion = undefined
    this.#generation++
  }

  async #poll(): Promise<void> {
    const { version } = this.#options.source
    if (version) {
      try {
        const current = await version()
        if (current === this.#lastVersion) return
        this.#lastVersion = current
      } catch (error) {
        this.#failed(error)
        return
      }
    }
    this.wake()
  }

  async #read(): Promise<void> {
    this.#reading = true
    try {
      do {
        this.#readAgain = false
        const generation = this.#generation
        const after = this.#horizon
        if (after === undefined) return
        const { events, newest } = await this.#options.source.readAfter(after, BATCH)
        this.#failing = false
        if (generation !== this.#generation) continue
        if (newest < after) {
          // Ids up to the horizon will be given again, to other events: reading on past the horizon would skip
          // them unseen. Each follower reads the store again, which refuses a position beyond the newest id (410).
          this.#horizon = newest
          for (const follower of [...this.#followers]) follower.rewound()
          continue
        }
        const last = events.at(-1)
        if (last === undefined) continue
        this.#horizon = last.id
        for (const follower of [...this.#followers]) follower.deliver(events, last.id)
        if (events.length === BATCH) this.#readAgain = true
      } while (this.#readAgain)
    } catch (error) {
      // The next poll tries again; the followers keep waiting (their own reads report the outage to clients). It
      // must read even if the version has not changed since: the version it saw is the one whose events this read
      // failed to fetch, and without another commit it would not change again.
      this.#lastVersion = undefined
      this.#failed(error)
    } finally {
      this.#reading = false
    }
  }

  /** Reported once per outage, not once per poll. */
  #failed(error: unknown): void {
    if (!this.#failing) this.#options.onError(error)
    this.#failing = true
  }
}
