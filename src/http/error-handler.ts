// One error handler for the whole service: every error, ours or the framework's, leaves as the Error body.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '../db/unavailable.js'
import { ApiError, errorBody, errorCodeForStatus, knownApiError, type ErrorDetail } from './errors.js'
import { applySecurityHeaders } from './security-headers.js'

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' }

interface AjvLikeError {
  instancePath?: string
  message?: string
  keyword?: string
  params?: Record<string, unknown>
}

function validationDetails(error: FastifyError): ErrorDetail[] {
  const part = PART_NAMES[error.validationContext ?? ''] ?? 'request'
  return ((error.validation ?? []) as AjvLikeError[]).map((problem) => {
    const missing = problem.params?.missingProperty
    const extra = problem.params?.additionalProperty
    const child = typeof missing === 'string' ? `/${missing}` : typeof extra === 'string' ? `/${extra}` : ''
    const message = typeof missing === 'string' ? 'is required'
      : typeof extra === 'string' ? 'is not allowed'
        : problem.keyword === 'enum' ? `must be one of ${(problem.params?.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`
          : problem.message ?? 'is invalid'
    return { path: `${part}${problem.instancePath ?? ''}${child}`, message }
  })
}

/** Maps an error to the ApiError the client sees. Anything unexpected becomes a masked internal_error. */
function toApiError(error: FastifyError): ApiError {
  const known = knownApiError(error)
  if (known) return known
  if (isDatabaseUnavailable(error)) {
    return new ApiError('unavailable', 'The database cannot be reached right now; retry the request.', { headers: { 'retry-after': '1' } })
  }
  if (error.validation) {
    const details = validationDetails(error)
    const summary = details.map((detail) => `${detail.path} ${detail.message}`).join('; ')
    return new ApiError('invalid_request', `Invalid request: ${summary}`, { details })
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is larger than the 16 KiB limit.')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'The request body must be sent as Content-Type: application/json.')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'The request body is empty; a JSON object is required.')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'The Content-Length header does not match the body.')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_request', 'The request body is not valid JSON.')
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', 'The request path is not validly percent-encoded.')
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('invalid_request', 'A segment of the request path is too long.')
  }
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) {
    const message = error instanceof SyntaxError ? `The request body is not valid JSON: ${error.message}` : error.message
    return new ApiError(errorCodeForStatus(status), message)
  }
  return new ApiError('internal_error', 'The service failed to complete the request. Quote the X-Request-Id when reporting it.')
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(error.statusCode)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(errorBody(error.code, error.message, error.details))
}

/** A masked failure is logged in full, with the request id; a client error in one line. */
function logError(request: FastifyRequest, error: FastifyError, apiError: ApiError): void {
  if (apiError.statusCode >= 500 && knownApiError(error) === undefined) {
    request.log.error({ err: error }, 'request failed')
  } else {
    request.log.info({ code: apiError.code, status: apiError.statusCode }, apiError.message)
  }
}

/**
 * Fastify's frameworkErrors: errors the router raises before any route or hook runs (a path that is not
 * valid percent-encoding, an over-long path segment). Without it they leave in Fastify's own shape. No hook
 * has run, so the headers every response carries are set here.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const apiError = toApiError(error)
  logError(request, error, apiError)
  reply.header('x-request-id', request.id)
  applySecurityHeaders(request, reply)
  void sendError(reply, apiError)
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error)
    logError(request, error, apiError)
    // Set here too, not only by their hooks: an error raised by an earlier hook skips the hooks after it.
    reply.header('x-request-id', request.id)
    applySecurityHeaders(request, reply)
    return sendError(reply, apiError)
  })
}
