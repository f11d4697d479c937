// The Error body every error response has, and the documented error responses of the operations.
import { Type, type TSchema } from 'typebox'
import { named, namedResponse, RESPONSE_NAME } from '../openapi/openapi-names.js'
import {
  AcceptEncodingHeader,
  AllowHeader,
  ETagHeader,
  IdempotentReplayedHeader,
  RetryAfterHeader,
  WwwAuthenticateHeader,
} from '../openapi/response-headers.js'
import { ERROR_CODES, type ErrorCode } from './errors.js'
import { MAX_DETAIL_PATH_LENGTH, MAX_LISTED_PROBLEMS } from '../validation/validation-details.js'
import { BODY_LIMIT_BYTES, inKiB } from '../limits.js'
import { exampleBody } from './error-examples.js'
import { MESSAGES } from './error-messages.js'

const codeDescription = Object.entries(ERROR_CODES)
  .map(([code, entry]) => `- \`${code}\` (${entry.status}): ${entry.meaning}`)
  .join('\n')

export const ErrorSchema = named(
  'Error',
  Type.Object(
    {
      code: Type.String({
        enum: Object.keys(ERROR_CODES),
        description: `Machine-readable error code:\n${codeDescription}`,
      }),
      message: Type.String({ description: 'Human-readable description of the problem.' }),
      status: Type.Integer({
        format: 'int32',
        minimum: 400,
        maximum: 599,
        description: 'The HTTP status code of the response.',
      }),
      details: Type.Optional(
        Type.Array(
          named(
            'ErrorDetail',
            Type.Object(
              {
                path: Type.String({
                  description: 'The request part and a JSON pointer into it, e.g. `body/categoryId` or `query/limit`.',
                }),
                message: Type.String({ description: 'What is wrong there.' }),
              },
              {
                description: 'One problem found in the request, and where.',
                examples: [{ path: 'body/categoryId', message: 'must be integer' }],
              },
            ),
          ),
          {
            maxItems: MAX_LISTED_PROBLEMS + 1,
            description:
              'Each problem found, where it was found: for invalid_request, and for not_found when the missing ' +
              'resource was named in the request (e.g. `body/petId`). ' +
              `At most ${MAX_LISTED_PROBLEMS} problems are listed; when more were found, one last entry has the ` +
              `request part alone as its path and counts the rest, e.g. \`{"path": "query", "message": "1280 ` +
              `more problems not listed"}\`. ` +
              `A path longer than ${MAX_DETAIL_PATH_LENGTH} characters is shortened, ending in \`…\`.`,
          },
        ),
      ),
    },
    {
      description:
        'The body of every error response. Open to additive change: a later version may add properties, which ' +
        'clients should ignore.',
      examples: [
        {
          code: 'invalid_request',
          message: 'Invalid request: body/categoryId must be integer',
          status: 400,
          details: [{ path: 'body/categoryId', message: 'must be integer' }],
        },
      ],
    },
  ),
)

const whenFor: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'The request is malformed (code `invalid_request`).',
  unauthorized: 'The API key is missing or invalid (code `unauthorized`); see WWW-Authenticate.',
  forbidden: 'The API key lacks the scope this operation requires (code `forbidden`); WWW-Authenticate names it.',
  not_found: 'Not found (code `not_found`).',
  // The same words as the response listed for each path's other methods (docs.ts): both are one shared response.
  method_not_allowed:
    'The path exists but does not support this method (code `method_not_allowed`); `Allow` lists the methods it ' +
    'does support. Any method not documented for a path gets it.',
  request_timeout: 'The request did not arrive completely in time (code `request_timeout`); the connection is closed.',
  request_header_fields_too_large:
    'The request line and headers are larger than the limit (code `request_header_fields_too_large`); the ' +
    'connection is closed.',
  conflict: 'The current state does not allow this transition (code `conflict`); nothing was changed.',
  precondition_failed:
    'The `If-Match` condition does not hold: the resource changed since that ETag was read, or the ETag was sent ' +
    'weak (`W/`; `If-Match` compares strongly), and its current `ETag` is in the response; or it does not exist; ' +
    'or, on `putCategory`, `If-None-Match: *` names a category that exists already (code `precondition_failed`). ' +
    'Nothing was changed.',
  idempotency_key_in_flight:
    'A request with the same `Idempotency-Key` is still being processed (code `idempotency_key_in_flight`); ' +
    'retry after Retry-After seconds to get its response.',
  idempotency_key_reused:
    'The `Idempotency-Key` was already used for a different request: another operation, resource, body or ' +
    'condition (code `idempotency_key_reused`). Nothing was changed.',
  gone: 'The feed position is older than the events kept (code `gone`): start again with `after=0`.',
  payload_too_large: `The body is larger than ${inKiB(BODY_LIMIT_BYTES)} (code \`payload_too_large\`).`,
  rate_limited:
    'The request quota of the key (or of the client address, without a valid key) is used up for this window ' +
    '(code `rate_limited`); retry after Retry-After seconds.',
  unsupported_media_type:
    'The body is not of a media type the operation takes (application/json; a PATCH also takes ' +
    'application/merge-patch+json), its Content-Type is not one well-formed media type or declares a charset ' +
    'other than UTF-8, or it has a `Content-Encoding` other than `identity` (then `Accept-Encoding: identity` says ' +
    'so; for a PATCH with another media type, `Accept-Patch` names the ones it takes) (code `unsupported_media_type`).',
  internal_error: 'Unexpected failure (code `internal_error`); internals are never shown.',
  unavailable: 'Shutting down or database unreachable (code `unavailable`).',
}

// A change's own refusal (400, 404, 409 or 412 from the effect) is stored under its Idempotency-Key and replayed
// like a success, with Idempotent-Replayed: declared on those responses of the operations that take the header.
const REPLAYED_CODES = new Set<ErrorCode>(['invalid_request', 'not_found', 'conflict', 'precondition_failed'])
const REPLAYED_HEADERS = { 'Idempotent-Replayed': IdempotentReplayedHeader }

const headersFor: Partial<Record<ErrorCode, Record<string, TSchema>>> = {
  precondition_failed: { ETag: ETagHeader },
  method_not_allowed: { Allow: AllowHeader },
  unauthorized: { 'WWW-Authenticate': WwwAuthenticateHeader },
  forbidden: { 'WWW-Authenticate': WwwAuthenticateHeader },
  idempotency_key_in_flight: { 'Retry-After': RetryAfterHeader },
  rate_limited: { 'Retry-After': RetryAfterHeader },
  unavailable: { 'Retry-After': RetryAfterHeader },
  unsupported_media_type: { 'Accept-Encoding': AcceptEncodingHeader },
}

/** The shared response's name for these codes (one status): `NotFound`, `ConflictOrIdempotencyKeyInFlight`. */
function responseName(codes: ErrorCode[]): string {
  return codes
    .map((code) =>
      code
        .split('_')
        .map((word) => `${word[0]?.toUpperCase()}${word.slice(1)}`)
        .join(''),
    )
    .join('Or')
}

/**
 * What any authenticated operation may answer, whatever it does: besides its own refusals, what the server sends
 * before any route is chosen (a request too slow or with too large headers; a method its path does not take).
 */
export const EVERY_OPERATION_ERRORS = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'method_not_allowed',
  'request_timeout',
  'request_header_fields_too_large',
  'rate_limited',
  'internal_error',
  'unavailable',
] as const satisfies readonly ErrorCode[]
/** What an operation taking an `Idempotency-Key` may answer about it. */
export const IDEMPOTENCY_ERRORS = [
  'idempotency_key_in_flight',
  'idempotency_key_reused',
] as const satisfies readonly ErrorCode[]
/** What an operation that reads a request body may answer about it. */
export const BODY_ERRORS = ['payload_too_large', 'unsupported_media_type'] as const satisfies readonly ErrorCode[]
/** What an operation taking no body may answer about one: 413 over the size limit; below it, 400, never 415. */
export const BODILESS_ERRORS = ['payload_too_large'] as const satisfies readonly ErrorCode[]
/** What an action on one resource that takes no body (cancel, complete, retry) may answer. */
export const BODILESS_ACTION_ERRORS = [
  ...([...EVERY_OPERATION_ERRORS, 'not_found', 'conflict'] as const),
  ...([...IDEMPOTENCY_ERRORS, ...BODILESS_ERRORS] as const),
] satisfies readonly ErrorCode[]

/**
 * Response schemas for the given error codes, keyed by status, each documented with the shared Error body and
 * an example; the document lists each once under `components.responses`. Codes that share a status (409
 * `conflict` and `idempotency_key_in_flight`) share one response, described by both.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of codes)
    byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code])
  // An operation that takes an Idempotency-Key lists its refusals (IDEMPOTENCY_ERRORS).
  const idempotent = codes.includes('idempotency_key_reused')
  const responses: Record<number, TSchema> = {}
  for (const [status, sharing] of byStatus) {
    const replayed = idempotent && sharing.some((code) => REPLAYED_CODES.has(code))
    const headers = Object.assign(
      {},
      ...sharing.map((code) => headersFor[code] ?? {}),
      replayed ? REPLAYED_HEADERS : {},
    ) as Record<string, TSchema>
    // 409 with idempotency_key_in_flight is an idempotent operation's already; the others get a name of their own.
    const ownName = replayed && !sharing.includes('idempotency_key_in_flight')
    const name = `${responseName(sharing)}${ownName ? 'Replayable' : ''}`
    responses[status] = namedResponse(name, {
      ...ErrorSchema,
      description: sharing.map((code) => whenFor[code] ?? ERROR_CODES[code].meaning).join(' '),
      examples: [exampleBody(sharing[0] as ErrorCode)],
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
    })
  }
  return responses
}

/**
 * The 403 of an operation that requires `scope`: its description and example name that scope. One shared
 * response per scope (`ForbiddenPetsWrite`).
 */
export function forbiddenResponse(scope: string) {
  const name = `Forbidden${scope
    .split(/[^a-z]/)
    .map((word) => `${word[0]?.toUpperCase()}${word.slice(1)}`)
    .join('')}`
  return namedResponse(name, {
    ...ErrorSchema,
    description:
      `The API key lacks the scope \`${scope}\` this operation requires (code \`forbidden\`); \`WWW-Authenticate\` ` +
      `names it: \`Bearer realm="petstore", error="insufficient_scope", scope="${scope}"\`.`,
    examples: [exampleBody('forbidden', MESSAGES.scopeMissing(scope))],
    headers: headersFor.forbidden,
  })
}

/**
 * The same responses, each also declaring `headers` (e.g. those a hook adds to every answer of the operation); no
 * longer the shared ones.
 */
export function withHeaders(
  responses: Record<number, TSchema>,
  headers: Record<string, TSchema>,
): Record<number, TSchema> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const previous = (response as { headers?: Record<string, TSchema> }).headers
      // Copied without its shared name: with these headers it is no longer the shared response.
      const copy = Object.fromEntries(Object.entries({ ...response, headers: { ...previous, ...headers } }))
      for (const symbol of Object.getOwnPropertySymbols(response))
        if (symbol !== RESPONSE_NAME)
          (copy as Record<symbol, unknown>)[symbol] = (response as Record<symbol, unknown>)[symbol]
      return [status, copy as TSchema]
    }),
  )
}
