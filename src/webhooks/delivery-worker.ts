// Each instance's deliverer. It creates deliveries from the event feed (fan-out.repository.ts), takes due ones
// from the database by lease (delivery.repository.ts), makes their attempts concurrently, and records the
// outcomes in batches. Attempts in progress are bounded in total and per endpoint: a receiver that hangs holds
// at most its own share of places, so the others' deliveries go on.
// A claim is a transaction, with its round trips (and on SQLite a commit's wait); the worker therefore claims
// ahead, a few attempts' worth per endpoint, and starts each held delivery as a place frees, only while its lease still
// outlasts an attempt (else it gives the delivery back for anyone to retry).
// It looks when this instance commits events, when an attempt ends, when a retry it scheduled falls due, and
// every poll interval (for events and work of other instances). While wake-ups keep coming, looks are spaced by
// the batch interval, so that each one's transactions serve many events. A look fans out new events only for
// endpoints that have no due delivery left: during a flood the backlog stays in the event log, and deliveries
// are made a batch at a time as they can be attempted (their rows cost the database as much as the events).
// Its transactions are bookkeeping that a crash of the database server may lose without losing a delivery (the
// fan-out is made again, a lost claim or outcome makes the delivery due again; at least once, as promised):
// they run as Store.bookkeeping, which on PostgreSQL takes no connection from the writers and no disk wait.
// On stop it lets attempts in progress finish for a while, then abandons the rest and gives their leases back.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { AttemptOutcome, DataAccess, Writer } from '../db/database.js'
import { toFeedEvent } from '../events/event.mapper.js'
import {
  claimDueDeliveries,
  dueState,
  recordAttempts,
  releaseDeliveries,
  type AttemptRecord,
  type ClaimedDelivery,
} from './delivery.repository.js'
import { fanOutEvents } from './fan-out.repository.js'
import { AttemptAbandoned, type OutboundResult } from './outbound-http.js'
import { retryDelayMs } from './retry-schedule.js'
import type { SecretBox } from './secret-box.js'
import type { Sender } from './sender.js'
import type { DeliveryGauges, DeliveryObserver } from './webhook-metrics.js'

export interface DeliveryWorkerSettings {
  /** Store.bookkeeping: reads and transactions apart from the API's, none of which need be durable before it resolves. */
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

interface Held extends ClaimedDelivery {
  /** Epoch milliseconds. */
  leaseEndsAt: number
}

interface InProgress {
  abandon: AbortController
  ended: Promise<void>
}

type Outcome = Pick<OutboundResult, 'responseStatus' | 'error' | 'responseBody'> & {
  outcome: AttemptOutcome
  final?: boolean
}

/** Deliveries held per place (claimed ahead of their attempt), so that places need not wait for a claim's commit. */
const CLAIM_AHEAD = 8
/**
 * A held delivery starts only if its lease outlasts an attempt by this much (the outcome must be recorded in time),
 * or by half the lease's excess over the attempt time-out, when that is less.
 */
const LEASE_MARGIN_MS = 2000
/** Opened secrets kept, at most, so that each attempt does not decrypt again. */
const MAX_OPENED_SECRETS = 1000
/** Events fanned out per transaction, at most. */
const FAN_OUT_BATCH = 1000

export class DeliveryWorker implements DeliveryGauges {
  readonly #settings: DeliveryWorkerSettings
  /** This instance's lease token: what it records is conditional on still holding the lease under it. */
  readonly #token = randomUUID()
  /** Claimed deliveries waiting for a place, per endpoint. */
  readonly #queued = new Map<number, Held[]>()
  /** Deliveries held (queued or in progress), per endpoint: what a claim may add to. */
  readonly #held = new Map<number, number>()
  readonly #runningPerEndpoint = new Map<number, number>()
  readonly #inProgress = new Map<number, InProgress>()
  readonly #opened = new Map<string, string>()
  #heldTotal = 0
  /** When the last attempt began while the API was busy (epoch milliseconds): those are spaced. */
  #lastBusyStart = 0
  #startTimer: NodeJS.Timeout | undefined
  #startTimerAt = 0
  #records: AttemptRecord[] = []
  #released: { deliveryId: number; attempt: number }[] = []
  #flushScheduled: Promise<void> | undefined
  #flushing: Promise<void> = Promise.resolve()
  #running: Promise<void> | undefined
  #runAgain = false
  /** When the last look began (epoch milliseconds). */
  #lastLookAt = 0
  #pollTimer: NodeJS.Timeout | undefined
  #dueTimer: NodeJS.Timeout | undefined
  #dueTimerAt = Number.POSITIVE_INFINITY
  #earliestDue: number | undefined
  /** Whether the last look saw an enabled endpoint; until a look says otherwise, assume one. */
  #endpointsEnabled = true
  #failing = false
  #stopping = false

  constructor(settings: DeliveryWorkerSettings) {
    this.#settings = settings
  }

  start(): void {
    this.#pollTimer = setInterval(() => this.wake(), this.#settings.pollIntervalMs)
    this.#pollTimer.unref()
    this.wake()
  }

  /** Something may be due: look (at most one look at a time; a wake during one makes it look again). */
  wake(): void {
    if (this.#stopping || this.#heldTotal >= this.#settings.concurrency * CLAIM_AHEAD) return
    if (this.#running) {
      this.#runAgain = true
      return
    }
    this.#running = this.#run().finally(() => (this.#running = undefined))
  }

  /**
   * A transaction that wrote events has committed here: the next look fans them out. Without an enabled endpoint
   * there is nothing to fan out, and a look per commit would only cost the writers; an endpoint enabled elsewhere
   * is seen by the next poll, and one enabled here calls endpointsChanged.
   */
  committed(): void {
    if (this.#endpointsEnabled) this.wake()
  }

  /** An endpoint was registered or changed here, or a delivery made due: look at once. */
  endpointsChanged(): void {
    this.#endpointsEnabled = true
    this.wake()
  }

  oldestDueAgeSeconds(): number {
    return this.#earliestDue === undefined ? 0 : Math.max(0, Date.now() - this.#earliestDue) / 1000
  }

  attemptsInProgress(): number {
    return this.#inProgress.size
  }

  /**
   * Stops taking work and gives back what waits for a place; attempts in progress get shutdownWaitMs to end,
   * the others are abandoned and their leases given back (due at once, for any instance). Resolves once
   * everything is recorded.
   */
  async stop(): Promise<void> {
    this.#stopping = true
    clearInterval(this.#pollTimer)
    clearTimeout(this.#dueTimer)
    clearTimeout(this.#startTimer)
    await this.#running
    for (const queue of this.#queued.values()) for (const delivery of queue.splice(0)) this.#giveBack(delivery)
    const ended = Promise.all([...this.#inProgress.values()].map((attempt) => attempt.ended))
    let timer: NodeJS.Timeout | undefined
    await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, this.#settings.shutdownWaitMs)))])
    clearTimeout(timer)
    for (const attempt of this.#inProgress.values()) attempt.abandon.abort()
    await ended
    await this.#flush()
    await this.#settings.sender.close()
  }

  async #run(): Promise<void> {
    const { data, concurrencyPerEndpoint } = this.#settings
    try {
      // `continue` re-checks the loop's condition: a wake that came during an await (a commit, say, after the
      // look found nothing due) makes the worker look once more.
      do {
        this.#runAgain = false
        await this.#spaceLooks()
        // Places may have opened without an attempt ending (the API is no longer busy).
        if (this.#stopping) break
        this.#startWaiting()
        // Endpoints whose share this instance holds whole are left out: during a flood of commits to a busy
        // endpoint, each look would otherwise run a claim that takes nothing. An attempt that ends wakes the
        // worker for them.
        const state = await dueState(data.read, Date.now(), this.#fullEndpoints())
        this.#endpointsEnabled = state.endpointsEnabled
        this.#earliestDue = state.earliestDue
        let claimable = state.earliestClaimable
        // The feed is the queue: deliveries are made only for endpoints that have run out of due ones, so that a
        // backlog stays events (written once, by their writers) rather than rows made ahead of their attempts.
        if (state.eventsWaiting && state.endpointsWithoutDueWork > 0) {
          const made = await this.#bookkeeping((trx) => fanOutEvents(trx, FAN_OUT_BATCH))
          if (made.deliveries > 0) claimable = Math.min(claimable ?? Date.now(), Date.now())
          if (made.more) this.#runAgain = true
        }
        const room = this.#claimLimit() - this.#heldTotal
        if (room <= 0) continue
        const now = Date.now()
        if (claimable === undefined) continue
        if (claimable > now) {
          this.#wakeAt(claimable)
          continue
        }
        const claimed = await this.#bookkeeping((trx) =>
          claimDueDeliveries(trx, {
            now,
            leaseMs: this.#settings.leaseMs,
            leaseToken: this.#token,
            total: room,
            perEndpoint: concurrencyPerEndpoint * CLAIM_AHEAD,
            inProgress: this.#held,
          }),
        )
        for (const delivery of claimed) this.#hold({ ...delivery, leaseEndsAt: now + this.#settings.leaseMs })
        this.#startWaiting()
        // A full batch may have left more behind. A short one took all that was due where there was room; the
        // rest waits for an attempt to end (which wakes the worker) or for its time.
        if (claimed.length === room) this.#runAgain = true
      } while (this.#runAgain && !this.#stopping)
      this.#failing = false
    } catch (error) {
      // Reported once per outage; the next wake or poll tries again, and leases taken meanwhile simply run out.
      if (!this.#failing) this.#settings.onError(error, 'could not look for due webhook deliveries')
      this.#failing = true
    }
  }

  /** Waits, if need be, so that looks begin at most once per batch interval. */
  async #spaceLooks(): Promise<void> {
    const wait = this.#lastLookAt + this.#settings.batchIntervalMs - Date.now()
    if (wait > 0) await sleep(wait, undefined, { ref: false })
    this.#lastLookAt = Date.now()
  }

  /** The worker's own transactions (see the top of this file). */
  #bookkeeping<T>(work: (trx: Writer) => Promise<T>): Promise<T> {
    return this.#settings.data.transaction(work)
  }

  /** Wakes the worker at `at` (a retry this or another instance scheduled), unless it will look sooner anyway. */
  #wakeAt(at: number): void {
    const delay = at - Date.now()
    if (delay >= this.#settings.pollIntervalMs || at >= this.#dueTimerAt) return
    clearTimeout(this.#dueTimer)
    this.#dueTimerAt = at
    this.#dueTimer = setTimeout(
      () => {
        this.#dueTimerAt = Number.POSITIVE_INFINITY
        this.wake()
      },
      Math.max(0, delay),
    )
    this.#dueTimer.unref()
  }

  /**
   * Deliveries this instance may hold (claimed ahead, or in progress). While the API is busy, attempts start one
   * per busy interval: it holds a second's worth of starts, so that what it holds neither waits past its lease
   * nor sits here while another instance could send it.
   */
  #claimLimit(): number {
    const { concurrency, busyIntervalMs } = this.#settings
    const limit = concurrency * CLAIM_AHEAD
    return this.#settings.apiBusy() ? Math.min(limit, Math.ceil(1000 / busyIntervalMs)) : limit
  }

  /** The endpoints of which this instance holds as many deliveries as it may (its share of places, claimed ahead). */
  #fullEndpoints(): number[] {
    const cap = this.#settings.concurrencyPerEndpoint * CLAIM_AHEAD
    return [...this.#held].filter(([, held]) => held >= cap).map(([endpointId]) => endpointId)
  }

  #hold(delivery: Held): void {
    const queue = this.#queued.get(delivery.endpointId)
    if (queue) queue.push(delivery)
    else this.#queued.set(delivery.endpointId, [delivery])
    this.#held.set(delivery.endpointId, (this.#held.get(delivery.endpointId) ?? 0) + 1)
    this.#heldTotal++
  }

  #unhold(endpointId: number): void {
    const left = (this.#held.get(endpointId) ?? 1) - 1
    if (left > 0) this.#held.set(endpointId, left)
    else this.#held.delete(endpointId)
    this.#heldTotal--
  }

  /**
   * Starts held deliveries where there are places: per endpoint (one while the API is busy), and in total. While
   * the API is busy, one per busy interval at most, the endpoints taking turns.
   */
  #startWaiting(): void {
    const { concurrency, attemptTimeoutMs, leaseMs, busyIntervalMs } = this.#settings
    const busy = this.#settings.apiBusy()
    const concurrencyPerEndpoint = busy ? 1 : this.#settings.concurrencyPerEndpoint
    const needed = attemptTimeoutMs + Math.min(LEASE_MARGIN_MS, (leaseMs - attemptTimeoutMs) / 2)
    const now = Date.now()
    if (busy && this.#lastBusyStart + busyIntervalMs > now) {
      if (this.#queued.size > 0) this.#startAt(this.#lastBusyStart + busyIntervalMs)
      return
    }
    for (const [endpointId, queue] of this.#queued) {
      while (
        queue.length > 0 &&
        this.#inProgress.size < concurrency &&
        (this.#runningPerEndpoint.get(endpointId) ?? 0) < concurrencyPerEndpoint
      ) {
        const delivery = queue.shift() as Held
        // Too late to attempt and record within the lease: another holder could take it meanwhile.
        if (delivery.leaseEndsAt - now < needed) {
          this.#giveBack(delivery)
          continue
        }
        this.#begin(delivery)
        if (busy) {
          // This endpoint's turn is over: it goes last, and the next start waits for the interval.
          this.#lastBusyStart = now
          this.#queued.delete(endpointId)
          if (queue.length > 0) this.#queued.set(endpointId, queue)
          if (this.#queued.size > 0) this.#startAt(now + busyIntervalMs)
          return
        }
      }
      if (queue.length === 0) this.#queued.delete(endpointId)
    }
  }

  /** Starts waiting deliveries again at `at`, unless an earlier start is already set. */
  #startAt(at: number): void {
    if (this.#startTimer && this.#startTimerAt <= at) return
    clearTimeout(this.#startTimer)
    this.#startTimerAt = at
    this.#startTimer = setTimeout(() => {
      this.#startTimer = undefined
      if (!this.#stopping) this.#startWaiting()
    }, at - Date.now())
    this.#startTimer.unref()
  }

  #giveBack(delivery: Held): void {
    this.#unhold(delivery.endpointId)
    this.#released.push({ deliveryId: delivery.id, attempt: delivery.attempt })
    this.#scheduleFlush()
  }

  #begin(delivery: Held): void {
    const abandon = new AbortController()
    const { endpointId } = delivery
    this.#runningPerEndpoint.set(endpointId, (this.#runningPerEndpoint.get(endpointId) ?? 0) + 1)
    const ended = this.#attempt(delivery, abandon.signal).finally(() => {
      this.#inProgress.delete(delivery.id)
      const left = (this.#runningPerEndpoint.get(endpointId) ?? 1) - 1
      if (left > 0) this.#runningPerEndpoint.set(endpointId, left)
      else this.#runningPerEndpoint.delete(endpointId)
      this.#unhold(endpointId)
      if (!this.#stopping) this.#startWaiting()
      // Claims cost a commit's wait: an endpoint that still holds plenty waits for more to end before claiming again.
      if ((this.#held.get(endpointId) ?? 0) <= (this.#settings.concurrencyPerEndpoint * CLAIM_AHEAD) / 2) this.wake()
    })
    this.#inProgress.set(delivery.id, { abandon, ended })
  }

  async #attempt(delivery: Held, abandoned: AbortSignal): Promise<void> {
    const started = new Date()
    let result: Outcome
    try {
      result = await this.#send(delivery, started, abandoned)
    } catch (error) {
      if (error instanceof AttemptAbandoned) {
        this.#released.push({ deliveryId: delivery.id, attempt: delivery.attempt })
        this.#scheduleFlush()
        return
      }
      this.#settings.onError(error, `could not make webhook delivery ${delivery.id}`)
      result = {
        outcome: 'internal_error',
        responseStatus: null,
        error: 'the service could not make the request (see its logs)',
        responseBody: null,
      }
    }
    const ended = Date.now()
    this.#settings.observer.attempted(result.outcome, (ended - started.getTime()) / 1000)
    const delay =
      result.outcome === 'succeeded' || result.final
        ? undefined
        : retryDelayMs(this.#settings.retryScheduleMs, delivery.attempt)
    const finishedAt = new Date(ended).toISOString()
    this.#records.push({
      deliveryId: delivery.id,
      attempt: delivery.attempt,
      startedAt: started.toISOString(),
      durationMs: ended - started.getTime(),
      outcome: result.outcome,
      responseStatus: result.responseStatus,
      error: result.error,
      responseBody: result.responseBody,
      next:
        result.outcome === 'succeeded'
          ? { status: 'succeeded' }
          : delay === undefined
            ? { status: 'failed', finishedAt }
            : { status: 'pending', dueAt: ended + delay },
    })
    this.#scheduleFlush()
    if (delay !== undefined) this.#wakeAt(ended + delay)
  }

  async #send(delivery: ClaimedDelivery, now: Date, abandoned: AbortSignal): Promise<Outcome> {
    if (!delivery.event) {
      return {
        outcome: 'event_gone',
        responseStatus: null,
        error: 'the event is no longer kept (purged by retention), so it cannot be delivered',
        responseBody: null,
        final: true,
      }
    }
    const overlapping =
      delivery.previousSecret !== null &&
      delivery.previousSecretExpiresAt !== null &&
      delivery.previousSecretExpiresAt > now.toISOString()
    return this.#settings.sender.send(
      {
        url: delivery.url,
        eventId: delivery.eventId,
        // The same bytes as the feed and the stream send.
        body: toFeedEvent(delivery.event).json,
        current: await this.#open(delivery.secret),
        previous:
          overlapping && delivery.previousSecret !== null ? await this.#open(delivery.previousSecret) : undefined,
        startedAt: now.getTime(),
      },
      abandoned,
    )
  }

  async #open(sealed: string): Promise<string> {
    let secret = this.#opened.get(sealed)
    if (secret === undefined) {
      if (this.#opened.size >= MAX_OPENED_SECRETS) this.#opened.clear()
      secret = (await this.#settings.secrets()).open(sealed)
      this.#opened.set(sealed, secret)
    }
    return secret
  }

  /**
   * Outcomes are written together, in one transaction per batch interval at most: attempts end one by one, and a
   * transaction each would cost the database more than the attempts. Nothing waits for them but the leases.
   */
  #scheduleFlush(): void {
    if (this.#flushScheduled) return
    const wait = this.#settings.batchIntervalMs
    this.#flushScheduled = new Promise<void>((resolve) => setTimeout(resolve, wait).unref()).then(() => {
      this.#flushScheduled = undefined
      return this.#flush()
    })
  }

  #flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushOnce())
    return this.#flushing
  }

  async #flushOnce(): Promise<void> {
    const records = this.#records
    const released = this.#released
    if (records.length === 0 && released.length === 0) return
    this.#records = []
    this.#released = []
    try {
      const recorded = await this.#bookkeeping(async (trx) => {
        await releaseDeliveries(trx, this.#token, released, Date.now())
        return recordAttempts(trx, this.#token, records, new Date().toISOString())
      })
      const ids = new Set(recorded)
      for (const record of records) {
        if (ids.has(record.deliveryId) && record.next.status !== 'pending')
          this.#settings.observer.finished(record.next.status)
      }
    } catch (error) {
      // Kept for the next flush; should the outage outlast the leases, the deliveries are simply attempted again.
      this.#records.unshift(...records)
      this.#released.unshift(...released)
      this.#settings.onError(error, 'could not record webhook delivery attempts')
      if (!this.#stopping) setTimeout(() => this.#scheduleFlush(), this.#settings.pollIntervalMs).unref()
    }
  }
}
