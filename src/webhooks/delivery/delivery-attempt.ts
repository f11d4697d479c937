// One attempt of one delivery: sign and send it (the sender), and say what became of it and what comes next.
import type { AttemptOutcome } from '../../db/database.js'
import { toFeedEvent } from '../../events/event.mapper.js'
import type { ClaimedDelivery } from './delivery-claim.repository.js'
import type { AttemptRecord } from './delivery-outcome.repository.js'
import { AttemptAbandoned, type OutboundResult } from './outbound-http.js'
import { retryDelayMs } from './retry-schedule.js'
import type { SecretBox } from '../secret-box.js'
import type { Sender } from './sender.js'

type Outcome = Pick<OutboundResult, 'responseStatus' | 'error' | 'responseBody'> & {
  outcome: AttemptOutcome
  final?: boolean
  /** Due again at once, whatever the retry schedule says. */
  again?: boolean
}

/** A request sent, and given up at shutdown before its answer: it counts, and any instance retries it at once. */
const INTERRUPTED: Outcome = {
  outcome: 'interrupted',
  responseStatus: null,
  error: 'this instance stopped before the answer came (shutdown); the request was sent and may have been received',
  responseBody: null,
  again: true,
}

/** Opened secrets kept, at most, so that each attempt does not decrypt again. */
const MAX_OPENED_SECRETS = 1000

export interface AttemptSettings {
  sender: Sender
  /** Opens the endpoints' sealed secrets (once the key is at hand). */
  secrets: () => Promise<SecretBox>
  retryScheduleMs: readonly number[]
  onError: (error: unknown, what: string) => void
}

export class DeliveryAttempts {
  readonly #settings: AttemptSettings
  readonly #opened = new Map<string, string>()

  constructor(settings: AttemptSettings) {
    this.#settings = settings
  }

  /**
   * Makes the attempt; undefined when it was abandoned (stop) before its request was sent, which counts for
   * nothing. One abandoned after that is recorded `interrupted`, as when an instance dies with it in progress.
   */
  async make(delivery: ClaimedDelivery, abandoned: AbortSignal): Promise<AttemptRecord | undefined> {
    const started = new Date()
    let result: Outcome
    try {
      result = await this.#send(delivery, started, abandoned)
    } catch (error) {
      if (error instanceof AttemptAbandoned && !error.sent) return undefined
      if (error instanceof AttemptAbandoned) result = INTERRUPTED
      else {
        this.#settings.onError(error, `could not make webhook delivery ${delivery.id}`)
        result = {
          outcome: 'internal_error',
          responseStatus: null,
          error: 'the service could not make the request (see its logs)',
          responseBody: null,
        }
      }
    }
    const ended = Date.now()
    const delay =
      result.outcome === 'succeeded' || result.final
        ? undefined
        : result.again
          ? 0
          : retryDelayMs(this.#settings.retryScheduleMs, delivery.attempt)
    return {
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
            ? { status: 'failed', finishedAt: new Date(ended).toISOString() }
            : { status: 'pending', dueAt: ended + delay },
    }
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
}
