// What a service says went wrong, in the domain's words. Services throw these; the HTTP layer's one error
// handler (http/errors/error-handler.ts) maps them to the Error body, so no service knows about statuses or paths.

/**
 * The messages services give their errors, as functions of what varies: the OpenAPI document's examples are made
 * with them too (http/errors/error-examples.ts), so an example always says what the service says.
 */
export const DOMAIN_MESSAGES = {
  petNotAvailable: (petId: number, status: string) =>
    `Pet ${petId} is ${status}; only an available pet can be ordered.`,
  eventsPurged: (purgedThrough: number, after: number) =>
    `Events up to ${purgedThrough} are no longer kept, so some after ${after} were missed; ` +
    'resynchronise and start again with after=0.',
  eventsAhead: (newest: number, after: number) =>
    `The feed has no event ${after}: its newest is ${newest}, so the events this position stands for are not ` +
    'here (a database restored from an earlier copy, or a position from another shop); resynchronise and start ' +
    'again with after=0.',
}

/** The resource does not exist (or no longer does). */
export class NotFound extends Error {
  constructor(
    readonly resource: 'pet' | 'order' | 'webhook' | 'delivery' | 'category',
    readonly id: number,
    /** The input field that named it, when it is not the addressed resource (an order's `petId`). */
    readonly referencedBy?: string,
  ) {
    super(`No ${resource} has id ${id}.`)
    this.name = 'NotFound'
  }
}

/** The request is valid, but the resource's current state does not allow it; nothing was changed. */
export class Conflict extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'Conflict'
  }
}

/**
 * A change that lost its race with other requests changing the same pet on every attempt: nothing was changed,
 * and the same request may well succeed when retried. Unlike other conflicts it is not the request's answer, so an
 * Idempotency-Key does not keep it for replay.
 */
export class Contended extends Conflict {
  constructor(petId: number, attempts: number) {
    super(`Pet ${petId} was changed by others ${attempts} times while this request ran; nothing was changed. Retry.`)
    this.name = 'Contended'
  }
}

/**
 * A conditional write whose condition on the resource's version does not hold (the client's copy is stale, or
 * the resource is gone); nothing was changed. `currentVersion` is undefined when the resource does not exist.
 */
export class PreconditionFailed extends Error {
  constructor(
    readonly resource: 'pet' | 'category',
    readonly id: number,
    readonly currentVersion: number | undefined,
    /** The condition was that the resource does not exist yet (HTTP `If-None-Match: *`), and it does. */
    readonly exists = false,
  ) {
    super(
      exists
        ? `The ${resource} ${id} exists already, so the condition that it does not cannot hold.`
        : currentVersion === undefined
          ? `No ${resource} has id ${id}, so the condition on its version cannot hold.`
          : `The ${resource} ${id} is at version ${currentVersion}, which the condition does not name.`,
    )
    this.name = 'PreconditionFailed'
  }
}

/** What was asked for existed but is no longer kept (events older than the retention period). */
export class Gone extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'Gone'
  }
}

/** The caller already holds as many long-lived reads (event streams and long polls) as it may; none was opened. */
export class TooManyOpenReads extends Error {
  constructor(
    reason: string,
    /** When trying again may succeed, in seconds. */
    readonly retryAfterSeconds: number,
  ) {
    super(reason)
    this.name = 'TooManyOpenReads'
  }
}

/** A value of the input breaks a domain rule the contract cannot state (a webhook URL aimed at a private address). */
export class InvalidInput extends Error {
  constructor(
    /** The input field at fault. */
    readonly field: string,
    /** What is wrong with it, in a few words. */
    readonly problem: string,
    message: string,
  ) {
    super(message)
    this.name = 'InvalidInput'
  }
}
