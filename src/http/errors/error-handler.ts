// One error handler for the whole service: every error, ours or the framework's, leaves as the Error body.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '../../db/unavailable.js'
import { guardRequest, type ApiGuard } from '../auth/auth.js'
import { isClientAbort } from '../request/client-abort.js'
import { duplicateHeaderError } from '../request/duplicate-headers.js'
import { ApiError, errorBody, errorCodeForStatus, knownApiError } from './errors.js'
import { redactKeys } from '../request/log-url.js'
import { noteRefusal } from '../request/refusal-note.js'
import { mediaTypeRefusal } from '../json/media-type.js'
import { API_PREFIX, requestPath } from '../paths.js'
import { absoluteFormAuthority, isSafeHost } from '../request/public-origin.js'
import { applySecurityHeaders } from '../request/security-headers.js'
import { CORS_RESPONSE_HEADERS } from '../request/cors.js'
import { validationDetails } from '../validation/validation-details.js'
import { MESSAGES } from './error-messages.js'

// A message can quote the request (a path, a parameter name) at any length; its log line is bounded.
const MAX_LOGGED_MESSAGE_LENGTH = 1000

/**
 * Why the router could not read a request target. It takes a path, or an absolute http(s) URL (RFC 9112 section
 * 3.2.2) whose host it can read: an absolute target with a port out of range, say, is refused for its host, as the
 * host check of Location and Link refuses the hosts the router reads.
 */
function badTargetMessage(url: string): string {
  const authority = absoluteFormAuthority(url)
  if (authority !== undefined && !isSafeHost(authority))
    return 'The host of the request target is not a valid host name.'
  return /^(\/|https?:\/\/)/i.test(url)
    ? 'The request path is not validly percent-encoded.'
    : 'The request target must be a path, or an absolute http or https URL.'
}

/** Maps an error to the ApiError the client sees. Anything unexpected becomes a masked internal_error. */
function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  const known = knownApiError(error, request.headers['if-match'])
  if (known) return known
  if (isClientAbort(request, error)) {
    // Nobody reads this answer; its status (not 5xx) keeps the request out of error rates and outage counts.
    return new ApiError('invalid_request', 'The client closed the connection before the request was complete.')
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError('unavailable', MESSAGES.databaseUnreachable(), {
      headers: { 'retry-after': '1' },
    })
  }
  if (error.validation) {
    const { details, summary } = validationDetails(error)
    return new ApiError('invalid_request', MESSAGES.invalidRequest(summary), { details })
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', MESSAGES.bodyTooLarge())
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return mediaTypeRefusal(request)
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'The request body is empty; a JSON object is required.')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'The Content-Length header does not match the body.')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_request', 'The request body is not valid JSON.')
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', badTargetMessage(request.url))
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('invalid_request', 'A segment of the request path is too long.')
  }
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) {
    const message =
      error instanceof SyntaxError ? `The request body is not valid JSON: ${error.message}` : error.message
    return new ApiError(errorCodeForStatus(status), message)
  }
  return new ApiError('internal_error', MESSAGES.internalError())
}

function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(error.statusCode)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(errorBody(error.code, error.message, error.details))
}

/**
 * A masked failure is logged in full, with the request id; so is a database error answered 503 (at warn: it is
 * transient, but an operator must see which error it was). Every refusal, those too, is told by the request's
 * access line (its code and message): no line of its own, so a flood of refusals writes one line per request.
 */
function logError(request: FastifyRequest, error: FastifyError, apiError: ApiError): void {
  if (apiError.statusCode >= 500 && knownApiError(error) === undefined) {
    if (apiError.code === 'unavailable') request.log.warn({ err: error }, 'request failed: database unavailable')
    else request.log.error({ err: error }, 'request failed')
  }
  const message = redactKeys(apiError.message)
  noteRefusal(request, {
    code: apiError.code,
    errorMessage:
      message.length > MAX_LOGGED_MESSAGE_LENGTH ? `${message.slice(0, MAX_LOGGED_MESSAGE_LENGTH)}…` : message,
  })
}

/**
 * Fastify's frameworkErrors: errors the router raises before any route or hook runs (a path that is not
 * valid percent-encoding, an over-long path segment). Without it they leave in Fastify's own shape. No hook
 * has run, so what the hooks do first is done here: the headers every response carries (CORS's included), the
 * refusal of repeated headers, and under the API prefix authentication, so that a request without a valid key
 * learns nothing about its path.
 */
export function handleFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  guard: ApiGuard,
): void {
  reply.header('x-request-id', request.id)
  applySecurityHeaders(request, reply)
  reply.headers(CORS_RESPONSE_HEADERS)
  void answerFrameworkError(error, request, reply, guard)
}

async function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  guard: ApiGuard,
): Promise<void> {
  let failure: FastifyError = duplicateHeaderError(request) ?? error
  const path = requestPath(request)
  if (failure === error && (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`))) {
    try {
      await guardRequest(request, reply, guard)
    } catch (refusal) {
      failure = refusal as FastifyError
    }
  }
  const apiError = toApiError(failure, request)
  logError(request, failure, apiError)
  void sendError(reply, apiError)
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, request)
    logError(request, error, apiError)
    // Set here too, not only by their hooks: an error raised by an earlier hook skips the hooks after it (a
    // refusal by the first hook skips CORS's).
    reply.header('x-request-id', request.id)
    applySecurityHeaders(request, reply)
    reply.headers(CORS_RESPONSE_HEADERS)
    return sendError(reply, apiError)
  })
}
