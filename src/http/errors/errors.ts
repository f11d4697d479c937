// Every error code the service can answer, in one place. The OpenAPI document lists this table, and the
// error handler turns any ApiError (or framework error) into the spec's Error body with these codes.
import { Conflict, Gone, InvalidInput, NotFound, PreconditionFailed, TooManyOpenReads } from '../../domain/errors.js'
import { entityTag, namesOnlyWeakly } from '../entity-tag.js'
import { BODY_LIMIT_BYTES, inKiB } from '../limits.js'

export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    meaning:
      'The request is malformed: a parameter or the body breaks the schema, or the JSON cannot be read (not ' +
      'UTF-8, not JSON, a key given twice in one object, a number that cannot be read exactly).',
  },
  unauthorized: { status: 401, meaning: 'The bearer API key is missing, unknown, revoked or expired.' },
  forbidden: {
    status: 403,
    meaning: 'The API key is valid but lacks the scope the operation requires (named in WWW-Authenticate).',
  },
  not_found: {
    status: 404,
    meaning:
      "No resource exists at this address (or with the id the body names, e.g. an order's petId), or no such route.",
  },
  method_not_allowed: { status: 405, meaning: 'The route exists but not with this HTTP method; see the Allow header.' },
  request_timeout: { status: 408, meaning: 'The request was not received completely in time.' },
  conflict: {
    status: 409,
    meaning:
      "The request is valid but the resource's current state does not allow it (e.g. ordering an animal that is " +
      'not available, cancelling a completed order); nothing was changed.',
  },
  idempotency_key_in_flight: {
    status: 409,
    meaning:
      'A request with the same Idempotency-Key (from the same API key) is still being processed; retry after ' +
      'Retry-After seconds to get its response.',
  },
  precondition_failed: {
    status: 412,
    meaning:
      'The If-Match condition does not hold: the resource changed since the ETag given was read (the current one ' +
      'is in the ETag header), or it does not exist; or If-None-Match: * on putCategory names a category that ' +
      'exists already; nothing was changed.',
  },
  gone: {
    status: 410,
    meaning:
      'What the request points at is no longer kept: an event feed position older than the events retained. ' +
      'Start again from the beginning (`after=0`).',
  },
  payload_too_large: { status: 413, meaning: `The request body is larger than ${inKiB(BODY_LIMIT_BYTES)}.` },
  unsupported_media_type: {
    status: 415,
    meaning:
      'The request body is not application/json (or, for an update with PATCH, application/merge-patch+json), or ' +
      'declares a charset other than UTF-8, or is sent with a Content-Encoding other than identity (answered with ' +
      'Accept-Encoding: identity). An operation that takes no body answers any body with 400 instead.',
  },
  idempotency_key_reused: {
    status: 422,
    meaning:
      'The Idempotency-Key was already used by this API key for a different request (another operation, resource, ' +
      'body or condition); send a new key for a new request.',
  },
  request_header_fields_too_large: { status: 431, meaning: 'The request headers are too large.' },
  rate_limited: {
    status: 429,
    meaning:
      'The API key (or, without a valid key, the client address) has used up its request quota for the current ' +
      'window, or the key already holds as many open event streams and long polls as it may; retry after the ' +
      'time given in Retry-After.',
  },
  internal_error: {
    status: 500,
    meaning: 'The service failed unexpectedly; the request id identifies the failure in the logs.',
  },
  unavailable: { status: 503, meaning: 'The service is shutting down or its database cannot be reached; retry later.' },
} as const satisfies Record<string, { status: number; meaning: string }>

export type ErrorCode = keyof typeof ERROR_CODES

export interface ErrorDetail {
  /** Where the problem is: the request part and a JSON pointer inside it, e.g. `body/categoryId`. */
  path: string
  message: string
}

/** An error the client should see as it is: code, message and status go into the Error body unchanged. */
export class ApiError extends Error {
  readonly code: ErrorCode
  readonly statusCode: number
  readonly details: ErrorDetail[] | undefined
  readonly headers: Record<string, string>

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    this.statusCode = ERROR_CODES[code].status
    this.details = options.details
    this.headers = options.headers ?? {}
  }
}

/** The Error body for a code: the shape every error response has. */
export function errorBody(code: ErrorCode, message: string, details?: ErrorDetail[]) {
  return { code, message, status: ERROR_CODES[code].status, ...(details ? { details } : {}) }
}

export function errorCodeForStatus(status: number): ErrorCode {
  const match = Object.entries(ERROR_CODES).find(([, entry]) => entry.status === status)
  if (match) return match[0] as ErrorCode
  return status >= 500 ? 'internal_error' : 'invalid_request'
}

/**
 * The ApiError for an error whose answer is known (ours, or a service's domain error), or undefined for
 * anything else, which the error handler masks as internal_error. The one mapping of domain errors to HTTP.
 * `ifMatch`, the request's If-Match, lets a 412 say why the tag it sent did not hold.
 */
export function knownApiError(error: unknown, ifMatch?: string): ApiError | undefined {
  if (error instanceof ApiError) return error
  if (error instanceof NotFound) {
    // A resource named in the body (an order's petId) is pointed at, so the client knows which value to fix.
    const details =
      error.referencedBy === undefined ? undefined : [{ path: `body/${error.referencedBy}`, message: 'does not exist' }]
    return new ApiError('not_found', error.message, details ? { details } : {})
  }
  if (error instanceof Conflict) return new ApiError('conflict', error.message)
  if (error instanceof PreconditionFailed) return preconditionFailed(error, ifMatch)
  if (error instanceof InvalidInput)
    return new ApiError('invalid_request', error.message, {
      details: [{ path: `body/${error.field}`, message: error.problem }],
    })
  if (error instanceof Gone) return new ApiError('gone', error.message)
  if (error instanceof TooManyOpenReads)
    return new ApiError('rate_limited', error.message, { headers: { 'retry-after': String(error.retryAfterSeconds) } })
  return undefined
}

/** 412, with the current ETag so that the client sees at once which version it would now be changing. */
function preconditionFailed(
  { resource, id, currentVersion, exists }: PreconditionFailed,
  ifMatch: string | undefined,
): ApiError {
  if (exists && currentVersion !== undefined) {
    const tag = entityTag(id, currentVersion)
    return new ApiError(
      'precondition_failed',
      `If-None-Match: * cannot hold: ${resource} ${id} exists already, at ${tag}. Nothing was changed.`,
      { headers: { etag: tag } },
    )
  }
  if (currentVersion === undefined) {
    return new ApiError(
      'precondition_failed',
      `If-Match cannot hold: no ${resource} has id ${id}. Nothing was changed.`,
    )
  }
  return ifMatchRefusal(resource, id, entityTag(id, currentVersion), ifMatch, 'change')
}

/**
 * The 412 of an If-Match that does not name `tag`, the current ETag, on a change or a read. A tag the client
 * sent weak (`W/"…"`) is named as the cause: strong comparison never lets one hold.
 */
export function ifMatchRefusal(
  resource: string,
  id: number,
  tag: string,
  ifMatch: string | undefined,
  request: 'change' | 'read',
): ApiError {
  const outcome = request === 'change' ? ' Nothing was changed.' : ''
  const message = namesOnlyWeakly(ifMatch, tag)
    ? `If-Match names the current ETag of ${resource} ${id} as a weak tag, W/${tag}; If-Match compares strongly, ` +
      `so a weak tag never holds: send the ETag as given, ${tag}.${outcome}`
    : request === 'change'
      ? `If-Match does not name the current ETag of ${resource} ${id}, ${tag}: it was changed since it was read. ` +
        'Nothing was changed; read it again before retrying.'
      : `If-Match does not name the current ETag of ${resource} ${id}, ${tag}: it was changed since that ETag was read.`
  return new ApiError('precondition_failed', message, { headers: { etag: tag } })
}
