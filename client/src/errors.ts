// The one error the client throws for an error response: the service's Error body plus what the response's
// headers say (request id, Retry-After). Network failures that outlast the retries are thrown as fetch threw them.
import { retryAfterSeconds } from './headers.js'
import type { ErrorCode, ErrorDetail, PetstoreErrorBody } from './schemas.js'

export class PetstoreError extends Error {
  override readonly name = 'PetstoreError'
  /** The HTTP status of the response. */
  readonly status: number
  /** The service's machine-readable code. */
  readonly code: ErrorCode
  /** For `invalid_request`: each problem, with where it is (e.g. `body/name`). */
  readonly details: ErrorDetail[] | undefined
  /** The response's `X-Request-Id`: quote it when asking about a failure. */
  readonly requestId: string | undefined
  /** Seconds to wait before trying again, from `Retry-After` (429, 503, 409 `idempotency_key_in_flight`). */
  readonly retryAfter: number | undefined
  /** Every header of the response (e.g. the current `ETag` of a 412). */
  readonly headers: Headers

  constructor(status: number, body: PetstoreErrorBody, headers: Headers) {
    super(body.message)
    this.status = status
    this.code = body.code
    this.details = body.details
    this.requestId = headers.get('x-request-id') ?? undefined
    this.retryAfter = retryAfterSeconds(headers)
    this.headers = headers
  }
}

/**
 * The error for a response that is not 2xx; a body that is not the service's (a proxy's page) gets a code from the
 * status.
 */
export function errorFromResponse(response: Response, body: unknown): PetstoreError {
  const errorBody = isErrorBody(body)
    ? body
    : {
        code: codeForStatus(response.status),
        message: `HTTP ${response.status} ${response.statusText}`.trim(),
        status: response.status,
      }
  return new PetstoreError(response.status, errorBody, response.headers)
}

function isErrorBody(body: unknown): body is PetstoreErrorBody {
  if (typeof body !== 'object' || body === null) return false
  const candidate = body as Record<string, unknown>
  return typeof candidate.code === 'string' && typeof candidate.message === 'string'
}

const CODE_FOR_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'idempotency_key_reused',
  429: 'rate_limited',
  431: 'request_header_fields_too_large',
  503: 'unavailable',
}

// A gateway's 502 or 504 means the service could not be reached: the same to a caller as 503.
function codeForStatus(status: number): ErrorCode {
  return (
    CODE_FOR_STATUS[status] ??
    (status === 502 || status === 504 ? 'unavailable' : status >= 500 ? 'internal_error' : 'invalid_request')
  )
}
