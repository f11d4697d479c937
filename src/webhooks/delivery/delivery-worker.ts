// Each instance's deliverer: a loop that creates deliveries from the event feed (fan-out.repository.ts), takes
// due ones from the database by lease (delivery-claim.repository.ts), starts their attempts as the planner
// decides (delivery-planner.ts: places per endpoint, fair turns, throttling of endpoints that time out), and
// hands what became of them to the batch writer (delivery-batch-writer.ts).
// A claim is a transaction, with its round trips (and on SQLite a commit's wait); the worker therefore claims
// ahead, a few attempts' worth per place, and starts each held delivery as a place frees, only while its lease
// still outlasts an attempt (else it gives the delivery back for anyone to retry). An attempt is sent once its
// start is recorded: a delivery held but never started goes back as it was, even if this instance dies.
// It looks when this instance commits events, when an attempt ends, when a retry it scheduled falls due, and
// every poll interval (for events and work of other instances). While wake-ups keep coming, looks are spaced by
// the batch interval, so that each one's transactions serve many events. A look fans out new events only for
// endpoints that have no due delivery left: during a flood the backlog stays in the event log, and deliveries
// are made a batch at a time as they can be attempted (their rows cost the database as much as the events).
// Its transactions are bookkeeping that a crash of the database server may lose without losing a delivery (the
// fan-out is made again, a lost claim or outcome makes the delivery due again; at least once, as promised):
// they run as Store.bookkeeping: on PostgreSQL no connection of the writers', no disk wait but for starts.
// On stop it lets attempts in progress finish for a while, then abandons the rest (recorded if sent, see stop).
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { DeliveryAttempts } from './delivery-attempt.js'
import { DeliveryBatchWriter } from './delivery-batch-writer.js'
import type { ClaimedDelivery } from './delivery-claim.repository.js'
import { DeletedEndpoints } from './deleted-endpoints.js'
import { lookForWork } from './delivery-look.js'
import { CLAIM_AHEAD, DeliveryPlanner } from './delivery-planner.js'
import type { DeliveryWorkerSettings } from './delivery-worker-settings.js'
import { EarliestTimer } from './earliest-timer.js'
import type { ThrottledEndpoint } from './endpoint-health.js'
import type { DeliveryGauges } from './webhook-metrics.js'

interface Held extends ClaimedDelivery {
  /** Epoch milliseconds. */
  leaseEndsAt: number
}

export class DeliveryWorker implements DeliveryGauges {
  readonly #settings: DeliveryWorkerSettings
  /** This instance's lease token: what it records is conditional on still holding the lease under it. */
  readonly #token = randomUUID()
  readonly #planner: DeliveryPlanner<Held>
  readonly #deletedEndpoints: DeletedEndpoints
  readonly #writer: DeliveryBatchWriter
  readonly #attempts: DeliveryAttempts
  /** Attempts in progress, by delivery: what stop abandons. */
  readonly #inProgress = new Map<number, { abandon: AbortController; ended: Promise<void> }>()
  /** Starts held deliveries again when the busy pace allows. */
  readonly #startTimer = new EarliestTimer(() => {
    if (!this.#stopping) this.#startWaiting()
  })
  /** Looks again when a retry falls due, or a lease ends, before the next poll. */
  readonly #dueTimer = new EarliestTimer(() => this.wake())
  #running: Promise<void> | undefined
  #runAgain = false
  /** When the last look began, by performance.now(): a step of the wall clock must not hold the next one back. */
  #lastLookAt = Number.NEGATIVE_INFINITY
  #pollTimer: NodeJS.Timeout | undefined
  #earliestDue: number | undefined
  /** Whether the last look saw an enabled endpoint; until a look says otherwise, assume one. */
  #endpointsEnabled = true
  #failing = false
  #stopping = false

  constructor(settings: DeliveryWorkerSettings) {
    this.#settings = settings
    this.#planner = new DeliveryPlanner(settings)
    this.#deletedEndpoints = new DeletedEndpoints(this.#planner.health, settings.pollIntervalMs)
    this.#writer = new DeliveryBatchWriter({
      data: settings.data,
      leaseToken: this.#token,
      batchIntervalMs: settings.batchIntervalMs,
      retryMs: settings.pollIntervalMs,
      finished: (status) => settings.observer.finished(status),
      onError: settings.onError,
    })
    this.#attempts = new DeliveryAttempts(settings)
  }

  start(): void {
    this.#pollTimer = setInterval(() => this.wake(), this.#settings.pollIntervalMs)
    this.#pollTimer.unref()
    this.wake()
  }

  /** Something may be due: look (at most one look at a time; a wake during one makes it look again). */
  wake(): void {
    if (this.#stopping || this.#planner.heldTotal >= this.#settings.concurrency * CLAIM_AHEAD) return
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

  throttledEndpoints(): ThrottledEndpoint[] {
    return this.#planner.health.throttled()
  }

  /**
   * Stops taking work and gives back what waits for a place; attempts in progress get shutdownWaitMs to end,
   * the others are abandoned and their leases given back (due at once, for any instance): uncounted if the
   * request had not left, recorded `interrupted` if it had. Resolves once everything is recorded.
   */
  async stop(): Promise<void> {
    this.#stopping = true
    clearInterval(this.#pollTimer)
    this.#dueTimer.clear()
    this.#startTimer.clear()
    await this.#running
    for (const delivery of this.#planner.drain()) this.#writer.release(this.#start(delivery), false)
    const ended = Promise.all([...this.#inProgress.values()].map((attempt) => attempt.ended))
    let timer: NodeJS.Timeout | undefined
    await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, this.#settings.shutdownWaitMs)))])
    clearTimeout(timer)
    for (const attempt of this.#inProgress.values()) attempt.abandon.abort()
    await ended
    this.#writer.stop()
    await this.#writer.flush()
    await this.#settings.sender.close()
  }

  async #run(): Promise<void> {
    const { data, leaseMs, concurrencyPerEndpoint } = this.#settings
    const settings = {
      data,
      leaseMs,
      leaseToken: this.#token,
      perEndpoint: concurrencyPerEndpoint * CLAIM_AHEAD,
      deletedEndpoints: this.#deletedEndpoints,
    }
    try {
      // A wake that came during an await (a commit, say, after the look found nothing due) makes it look again.
      do {
        this.#runAgain = false
        await this.#spaceLooks()
        if (this.#stopping) break
        // Places may have opened without an attempt ending (the API is no longer busy).
        this.#startWaiting()
        const look = await lookForWork(settings, this.#planner, this.#claimLimit())
        this.#endpointsEnabled = look.endpointsEnabled
        this.#earliestDue = look.earliestDue
        if (look.again) this.#runAgain = true
        if (look.wakeAt !== undefined) this.#wakeAt(look.wakeAt)
        for (const delivery of look.claimed) this.#planner.hold({ ...delivery, leaseEndsAt: look.claimedAt + leaseMs })
        this.#startWaiting()
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
    const wait = this.#lastLookAt + this.#settings.batchIntervalMs - performance.now()
    if (wait > 0) await sleep(wait, undefined, { ref: false })
    this.#lastLookAt = performance.now()
  }

  /** Wakes the worker at `at` (a retry this or another instance scheduled), unless it will look sooner anyway. */
  #wakeAt(at: number): void {
    if (at - Date.now() < this.#settings.pollIntervalMs) this.#dueTimer.at(at)
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

  /** Starts what the planner says may start now; gives back what was held too long to start. */
  #startWaiting(): void {
    const plan = this.#planner.plan(Date.now(), this.#settings.apiBusy())
    for (const delivery of plan.giveBack) this.#writer.release(this.#start(delivery), false)
    for (const delivery of plan.start) this.#begin(delivery)
    if (plan.nextAt !== undefined) this.#startTimer.at(plan.nextAt)
  }

  #start = ({ id, attempt, endpointId, url, secret }: Held) => ({ deliveryId: id, attempt, endpointId, url, secret })

  #begin(delivery: Held): void {
    const abandon = new AbortController()
    const { endpointId } = delivery
    const ended = this.#attempt(delivery, abandon.signal).finally(() => {
      this.#inProgress.delete(delivery.id)
      if (!this.#stopping) this.#startWaiting()
      // Claims cost a commit's wait: an endpoint that still holds plenty waits for more to end before claiming again.
      if (this.#planner.held(endpointId) <= this.#planner.allowance(endpointId) / 2) this.wake()
    })
    this.#inProgress.set(delivery.id, { abandon, ended })
  }

  /** Records the start, sends, and hands the outcome to the writer; tells the planner how it ended. */
  async #attempt(delivery: Held, abandoned: AbortSignal): Promise<void> {
    const start = this.#start(delivery)
    if (!(await this.#writer.started(start))) {
      // Not sent: the lease was lost, the endpoint changed since the claim, or the start was not written.
      this.#writer.release(start, false)
      this.#planner.ended(delivery, undefined, Date.now())
      return
    }
    const record = await this.#attempts.make(delivery, abandoned)
    if (!record) {
      this.#writer.release(start, true)
      this.#planner.ended(delivery, undefined, Date.now())
      return
    }
    const timedOut = record.outcome === 'timed_out'
    // An attempt interrupted by the stop had no answer to judge the endpoint by.
    this.#planner.ended(delivery, record.outcome === 'interrupted' ? undefined : !timedOut, Date.now())
    const places = this.#planner.health.places(delivery.endpointId)
    if (timedOut && places < this.#settings.concurrencyPerEndpoint) {
      record.error =
        `${record.error ?? 'timed out'}; the endpoint's attempts time out, so this instance gives it ${places} ` +
        `of its ${this.#settings.concurrencyPerEndpoint} delivery places until it answers again`
    }
    this.#settings.observer.attempted(record.outcome, record.durationMs / 1000)
    this.#writer.record(record)
    if (record.next.status === 'pending' && !this.#stopping) this.#wakeAt(record.next.dueAt)
  }
}
