// The event feed's use cases: a page (or a long poll) of the feed, and a stream that follows it. Events are
// written by the other services, in their own transactions (event-log.ts); this one reads them.
import type { DataAccess, EventType } from '../db/database.js'
import { DOMAIN_MESSAGES, Gone, TooManyOpenReads } from '../domain/errors.js'
import { EventHub, type HubSource } from './event-hub.js'
import { toFeedEvent, type FeedEvent } from './event.mapper.js'
import { newestReadableEventId, readEventPage } from './event.repository.js'
import { EVENT_TYPES } from './event.schema.js'
import { FeedFollower, type FeedPage, type FeedRead } from './feed-follower.js'
import { OpenReadLimits } from './open-read-limits.js'

export type { FeedPage }

export interface FeedQuery {
  /** Events after this id. */
  after: number
  limit: number
  /** Only these types; undefined: every type. */
  types: readonly EventType[] | undefined
}

/** An open follower of the feed, for a stream. */
export interface EventSubscription {
  /** The first events, read when it was opened (an `after` older than the events kept is refused there). */
  readonly initial: FeedEvent[]
  /** The next events, once there are any; none once `until` settles first, or the subscription has ended. */
  next(until: Promise<unknown>): Promise<FeedEvent[]>
  /**
   * Where it stands: no matching event at or below it is left to send. With a type filter it is often past the
   * last event sent, over events of other types.
   */
  readonly position: number
  /** True once it was closed, or the service is shutting down. */
  readonly ended: boolean
  /** Settles when the service shuts down (not when the subscription is closed otherwise). */
  readonly shutDown: Promise<void>
  close(): void
}

export interface EventStats {
  /** Events written through this instance, by type, since it started (committed ones only). */
  written: Readonly<Record<EventType, number>>
  openStreams: number
  waitingLongPolls: number
}

export interface EventService {
  /**
   * A page of the feed. With `waitMs`, a long poll: when nothing matches yet, it answers as soon as something
   * is committed (or with no events once the wait ends, `stop` aborts, or the service shuts down).
   * Gone when `after` is older than the events kept; TooManyOpenReads when `holder` waits in too many places.
   */
  list(query: FeedQuery, options: { waitMs: number; holder: string; stop: AbortSignal }): Promise<FeedPage>
  /** Opens a stream of the feed for `holder`, which counts against its open reads until closed. */
  subscribe(query: Omit<FeedQuery, 'limit'>, holder: string): Promise<EventSubscription>
  /** A transaction with these events has committed on this instance (counted, not yet readable on PostgreSQL). */
  committed(types: readonly EventType[]): void
  /** New events may be readable: waiting readers look. */
  readable(): void
  stats(): EventStats
  /** Ends every wait and stream (shutdown). */
  stop(): void
}

export interface EventServiceDependencies {
  data: DataAccess
  /** A number that changes whenever anyone commits, where the store has one. */
  readVersion: (() => Promise<number>) | undefined
  openReadsPerKey: number
  /** A long poll waits at most this long, whatever it asks. */
  maxWaitMs: number
  pollIntervalMs: number
  onError: (error: unknown) => void
}

/** With a type filter, the readable events one read looks at, at most, whatever their type. */
const SCAN_LIMIT = 10_000
/** Events a stream sends per read. */
const STREAM_BATCH = 1000

export function createEventService(dependencies: EventServiceDependencies): EventService {
  const { data } = dependencies

  const read =
    (types: readonly EventType[] | undefined): FeedRead =>
    async (after, limit) => {
      const page = await readEventPage(data.read, { after, limit, types, scanLimit: SCAN_LIMIT })
      // After 0 means "from the oldest event kept"; any other position before the purged range has missed events.
      if (after > 0 && after < page.purgedThrough) {
        throw new Gone(DOMAIN_MESSAGES.eventsPurged(page.purgedThrough, after))
      }
      // Every position the feed hands out is an id it has given out: one beyond them was never read here. Waiting
      // for it would skip, unseen, every event numbered up to it from now on.
      if (after > page.newest) throw new Gone(DOMAIN_MESSAGES.eventsAhead(page.newest, after))
      const events = page.rows.map(toFeedEvent)
      const full = events.length === limit
      const lastEvent = events.at(-1)?.id ?? after
      const position = full || !page.scanned ? lastEvent : Math.max(after, page.scanned.last ?? after)
      return { events, position, complete: !full && (!page.scanned || page.scanned.count < SCAN_LIMIT) }
    }

  const source: HubSource = {
    // The hub reads only past what it has seen, always newer than anything purged; the newest id tells it when the
    // database went back in time under it.
    readAfter: async (after, limit) => {
      const page = await readEventPage(data.read, { after, limit, types: undefined, scanLimit: limit })
      return { events: page.rows.map(toFeedEvent), newest: page.newest }
    },
    newestId: () => newestReadableEventId(data.read),
    version: dependencies.readVersion,
  }
  const hub = new EventHub({ source, pollIntervalMs: dependencies.pollIntervalMs, onError: dependencies.onError })
  const limits = new OpenReadLimits(dependencies.openReadsPerKey)
  const written = Object.fromEntries(EVENT_TYPES.map((type) => [type, 0])) as Record<EventType, number>
  let openStreams = 0
  let waitingLongPolls = 0

  return {
    async list(query, { waitMs: asked, holder, stop }) {
      const waitMs = Math.min(asked, dependencies.maxWaitMs)
      if (waitMs === 0) return read(query.types)(query.after, query.limit)
      let release: () => void
      try {
        release = limits.acquire(holder)
      } catch (error) {
        // A long poll whose events are there already does not wait, so it needs no place: it is answered.
        if (!(error instanceof TooManyOpenReads)) throw error
        const page = await read(query.types)(query.after, query.limit)
        if (page.events.length > 0) return page
        throw error
      }
      const follower = new FeedFollower(hub, read(query.types), query.after, query.types)
      const onStop = () => follower.stop()
      stop.addEventListener('abort', onStop)
      if (stop.aborted) follower.stop()
      let timer: NodeJS.Timeout | undefined
      waitingLongPolls++
      try {
        await follower.start()
        return await follower.next(query.limit, new Promise((resolve) => (timer = setTimeout(resolve, waitMs))))
      } finally {
        waitingLongPolls--
        clearTimeout(timer)
        stop.removeEventListener('abort', onStop)
        follower.stop()
        release()
      }
    },

    async subscribe(query, holder) {
      const release = limits.acquire(holder)
      const follower = new FeedFollower(hub, read(query.types), query.after, query.types)
      let initial: FeedEvent[]
      try {
        await follower.start()
        initial = (await follower.next(STREAM_BATCH, Promise.resolve())).events
      } catch (error) {
        follower.stop()
        release()
        throw error
      }
      openStreams++
      let closed = false
      return {
        initial,
        next: async (until) => (await follower.next(STREAM_BATCH, until)).events,
        get position() {
          return follower.position
        },
        get ended() {
          return closed || follower.stopped
        },
        shutDown: follower.shutDown,
        close() {
          if (closed) return
          closed = true
          openStreams--
          follower.stop()
          release()
        },
      }
    },

    committed(types) {
      for (const type of types) written[type]++
    },

    readable: () => hub.wake(),

    stats: () => ({ written, openStreams, waitingLongPolls }),

    stop: () => hub.close(),
  }
}
