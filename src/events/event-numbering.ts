// Numbering on PostgreSQL, where a writer's event has no id until it is numbered (event.repository.ts says why).
// Every instance numbers, one numbering at a time per database (the lock in numberCommittedEvents):
//  - at once after each of its own commits that wrote events, so an event waits only for its own commit and
//    one numbering transaction. The writers themselves send no NOTIFY: a transaction that notifies takes a lock
//    that PostgreSQL holds through its commit, so concurrent writers would commit one after another, each
//    waiting for the disk in turn, instead of together;
//  - on a periodic sweep, for events committed by an instance that died before it numbered them (kill -9), by
//    a tool, or whose numbering failed (the database was away): they wait one sweep at most. A sweep after
//    numberings also vacuums the inbox they moved events out of (vacuumEventInbox says why).
// A numbering that numbered anything tells every instance (NOTIFY at its commit); each then wakes its readers
// (long polls, streams, the webhook fan-out), as the instance that numbered does at once. Where notifications
// do not arrive (a proxy that pools by transaction), the readers' own polls find the events, and the
// guarantees are the same: only the wait is longer.
import type { Kysely } from 'kysely'
import type { DataAccess, Database } from '../db/database.js'
import type { Listen } from '../db/postgres-listen.js'
import {
  EVENTS_NUMBERED_CHANNEL,
  numberCommittedEvents,
  NUMBERING_BATCH as BATCH,
  vacuumEventInbox,
} from '../db/postgres/number-events.js'

export interface EventNumberingSettings {
  /** Durable transactions on a connection of their own (Store.sequencing). */
  data: DataAccess
  /** For statements outside any transaction (the inbox's vacuum). */
  maintenance: Kysely<Database>
  /** Notifications from the other instances' numberings; undefined: none (readers poll). */
  listen: Listen | undefined
  /** Events were numbered, here or on another instance: readers may find new ones. */
  onNumbered: () => void
  sweepIntervalMs: number
  /** `what` failed: a numbering, or the inbox's vacuum. */
  onError: (error: unknown, what: string) => void
}

/** The most sweeps between two vacuums of an inbox that a held snapshot keeps from emptying. */
const MAX_LEFTOVER_BACKOFF = 64

export class EventNumbering {
  readonly #settings: EventNumberingSettings
  #running: Promise<void> | undefined
  #again = false
  #failing = false
  #stopped = false
  /** Events were moved out of the inbox since its last vacuum. */
  #movedSinceVacuum = false
  /**
   * The last vacuum left pages behind (a transaction somewhere still sees the rows): later sweeps vacuum again,
   * each time after twice as many sweeps (at most MAX_LEFTOVER_BACKOFF), unless events move meanwhile. A snapshot
   * held for an hour (a pg_dump) then costs a few dozen vacuums of the inbox, not one a second.
   */
  #leftInInbox = false
  #leftoverBackoff = 0
  #sweepsToSkip = 0
  /** A sweep asked for the vacuum, which follows the numbering in progress. */
  #vacuumDue = false
  /** The vacuum in progress, beside the numberings (#startVacuum says why). */
  #vacuuming: Promise<void> | undefined
  #vacuumFailing = false
  #timer: NodeJS.Timeout | undefined
  #listening: { close(): Promise<void> } | undefined

  constructor(settings: EventNumberingSettings) {
    this.#settings = settings
  }

  start(): void {
    const { listen, onNumbered, onError, sweepIntervalMs } = this.#settings
    this.#listening = listen?.(EVENTS_NUMBERED_CHANNEL, {
      onNotify: onNumbered,
      // Numberings made while nobody listened were not heard: readers look once.
      onConnected: onNumbered,
      onError: (error) => onError(error, 'could not number new events'),
    })
    this.#timer = setInterval(() => {
      this.#vacuumDue = true
      this.committed()
    }, sweepIntervalMs)
    this.#timer.unref()
    // Events left unnumbered by an instance that stopped are numbered now, not at the first sweep.
    this.committed()
  }

  /** Events may wait for a number: numbers them now, or once the numbering in progress has ended. */
  committed(): void {
    if (this.#stopped) return
    if (this.#running) {
      this.#again = true
      return
    }
    this.#running = this.#run().finally(() => (this.#running = undefined))
  }

  /** Stops numbering (shutdown), after the numbering in progress. */
  async stop(): Promise<void> {
    this.#stopped = true
    clearInterval(this.#timer)
    await this.#listening?.close()
    await this.#running
    await this.#vacuuming
  }

  /**
   * Starts the sweep's vacuum unless one is running. It runs beside the numberings, never in their way: a vacuum
   * that empties the inbox then waits to truncate it (an exclusive lock, up to the statement time-out) while any
   * transaction has the table open, an idle psql that read it or a pg_dump, and events committed meanwhile would
   * wait as long for their numbers.
   */
  #startVacuum(): void {
    this.#vacuumDue = false
    this.#vacuuming ??= this.#sweepVacuum().finally(() => (this.#vacuuming = undefined))
  }

  /** A sweep's vacuum: after events moved out of the inbox, or, backing off, while a vacuum left pages behind. */
  async #sweepVacuum(): Promise<void> {
    if (!this.#movedSinceVacuum && !this.#leftInInbox) return
    if (!this.#movedSinceVacuum && this.#sweepsToSkip > 0) {
      this.#sweepsToSkip--
      return
    }
    this.#movedSinceVacuum = false
    try {
      this.#leftInInbox = await vacuumEventInbox(this.#settings.maintenance)
      this.#vacuumFailing = false
    } catch (error) {
      // Reported once until a vacuum succeeds; later sweeps try again, backing off as after pages left behind.
      if (!this.#vacuumFailing) this.#settings.onError(error, 'could not vacuum the event inbox')
      this.#vacuumFailing = true
      this.#leftInInbox = true
    }
    this.#leftoverBackoff = this.#leftInInbox
      ? Math.min(Math.max(1, this.#leftoverBackoff * 2), MAX_LEFTOVER_BACKOFF)
      : 0
    this.#sweepsToSkip = this.#leftInInbox ? this.#leftoverBackoff - 1 : 0
  }

  async #run(): Promise<void> {
    do {
      this.#again = false
      try {
        const { count: numbered, more } = await this.#settings.data.transaction((trx) =>
          numberCommittedEvents(trx, BATCH),
        )
        this.#failing = false
        if (numbered > 0) {
          this.#movedSinceVacuum = true
          this.#settings.onNumbered()
        }
        if (more) this.#again = true
        if (this.#vacuumDue && !more) this.#startVacuum()
      } catch (error) {
        // Reported once per outage; the next commit or sweep tries again.
        if (!this.#failing) this.#settings.onError(error, 'could not number new events')
        this.#failing = true
        return
      }
    } while (this.#again && !this.#stopped)
  }
}
