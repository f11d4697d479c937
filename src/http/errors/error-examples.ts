// The example body of each error code in the OpenAPI document, made by the same message factories the code
// refuses requests with (error-messages.ts, domain/errors.ts), so an example cannot drift from what is said.
import { DOMAIN_MESSAGES, NotFound, PreconditionFailed } from '../../domain/errors.js'
import { MESSAGES } from './error-messages.js'
import { ERROR_CODES, knownApiError, type ErrorCode, type ErrorDetail } from './errors.js'

const INVALID_DETAIL = { path: 'body/categoryId', message: 'must be integer' }

/** A realistic message (and details) of each error, as the service sends it for the request described. */
export const EXAMPLES: Record<ErrorCode, { message: string; details?: ErrorDetail[] }> = {
  invalid_request: {
    message: MESSAGES.invalidRequest(`${INVALID_DETAIL.path} ${INVALID_DETAIL.message}`),
    details: [INVALID_DETAIL],
  },
  unauthorized: { message: MESSAGES.keyRequired() },
  forbidden: { message: MESSAGES.scopeMissing('pets:write') },
  not_found: { message: new NotFound('pet', 12).message },
  method_not_allowed: { message: MESSAGES.methodNotAllowed('PUT', 'GET, POST, HEAD') },
  request_timeout: { message: MESSAGES.requestTimeout() },
  conflict: { message: DOMAIN_MESSAGES.petNotAvailable(12, 'pending') },
  idempotency_key_in_flight: { message: MESSAGES.idempotencyKeyInFlight() },
  // Pet 12 at version 4 (ETag "12.4"), changed since the client read it.
  precondition_failed: { message: knownApiError(new PreconditionFailed('pet', 12, 4))?.message ?? '' },
  gone: { message: DOMAIN_MESSAGES.eventsPurged(5120, 4000) },
  payload_too_large: { message: MESSAGES.bodyTooLarge() },
  unsupported_media_type: { message: MESSAGES.mediaTypeRequired(['application/json']) },
  idempotency_key_reused: { message: MESSAGES.idempotencyKeyReused() },
  request_header_fields_too_large: { message: MESSAGES.headersTooLarge() },
  rate_limited: { message: MESSAGES.keyQuotaUsed(600, 60, 42) },
  internal_error: { message: MESSAGES.internalError() },
  unavailable: { message: MESSAGES.databaseUnreachable() },
}

/** The example Error body of a code; `message` for a variant of it (the 403 naming an operation's scope). */
export function exampleBody(code: ErrorCode, message = EXAMPLES[code].message) {
  const { details } = EXAMPLES[code]
  return { code, message, status: ERROR_CODES[code].status, ...(details ? { details } : {}) }
}
