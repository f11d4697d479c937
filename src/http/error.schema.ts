import { Type, type TSchema } from 'typebox'
import { ERROR_CODES, type ErrorCode } from './errors.js'
import { MAX_DETAIL_PATH_LENGTH, MAX_LISTED_PROBLEMS } from './validation-details.js'
import { BODY_LIMIT_BYTES, inKiB } from './limits.js'

const codeDescription = Object.entries(ERROR_CODES)
  .map(([code, entry]) => `- \`${code}\` (${entry.status}): ${entry.meaning}`)
  .join('\n')

export const ErrorSchema = Type.Object(
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
        Type.Object(
          {
            path: Type.String({
              description: 'The request part and a JSON pointer into it, e.g. `body/categoryId` or `query/limit`.',
            }),
            message: Type.String(),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: MAX_LISTED_PROBLEMS + 1,
          description:
            'Each problem found, where it was found: for invalid_request, and for not_found when the missing resource was named in the request (e.g. `body/petId`). ' +
            `At most ${MAX_LISTED_PROBLEMS} problems are listed; when more were found, one last entry has the request part alone as its path and counts the rest, e.g. \`{"path": "query", "message": "1280 more problems not listed"}\`. ` +
            `A path longer than ${MAX_DETAIL_PATH_LENGTH} characters is shortened, ending in \`…\`.`,
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'The body of every error response.' },
)

const whenFor: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'The request is malformed (code `invalid_request`).',
  unauthorized: 'The API key is missing or invalid (code `unauthorized`); see WWW-Authenticate.',
  forbidden: 'The API key lacks the scope this operation requires (code `forbidden`); WWW-Authenticate names it.',
  not_found: 'Not found (code `not_found`).',
  method_not_allowed: 'Method not allowed (code `method_not_allowed`).',
  conflict: 'The current state does not allow this transition (code `conflict`); nothing was changed.',
  precondition_failed:
    'The `If-Match` condition does not hold: the animal changed since that ETag was read (its current `ETag` is in the response), or it no longer exists (code `precondition_failed`). Nothing was changed.',
  idempotency_key_in_flight:
    'A request with the same `Idempotency-Key` is still being processed (code `idempotency_key_in_flight`); retry after Retry-After seconds to get its response.',
  idempotency_key_reused:
    'The `Idempotency-Key` was already used for a different request: another operation, resource or body (code `idempotency_key_reused`). Nothing was changed.',
  payload_too_large: `The body is larger than ${inKiB(BODY_LIMIT_BYTES)} (code \`payload_too_large\`).`,
  rate_limited:
    'The request quota of the key (or of the client address, without a valid key) is used up for this window (code `rate_limited`); retry after Retry-After seconds.',
  unsupported_media_type:
    'The body is not of a media type the operation takes (application/json; for updatePet also application/merge-patch+json), or declares a charset other than UTF-8 (code `unsupported_media_type`).',
  internal_error: 'Unexpected failure (code `internal_error`); internals are never shown.',
  unavailable: 'Shutting down or database unreachable (code `unavailable`).',
}

const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': Type.String({
    description:
      'The quota that applies (draft-ietf-httpapi-ratelimit-headers): `"default";q=<requests>;w=<window seconds>`. Sent on every response under /v1.',
  }),
  RateLimit: Type.String({
    description:
      'What is left of it: `"default";r=<remaining requests>;t=<seconds until the window resets>`. Sent on every response under /v1.',
  }),
}

const headersFor: Partial<Record<ErrorCode, Record<string, TSchema>>> = {
  unauthorized: {
    'WWW-Authenticate': Type.String({
      description:
        'RFC 6750 challenge: `Bearer realm="petstore"`, with `error="invalid_token"` when a key was sent but is not valid.',
    }),
  },
  forbidden: {
    'WWW-Authenticate': Type.String({
      description:
        'RFC 6750 challenge naming the scope required: `Bearer realm="petstore", error="insufficient_scope", scope="pets:write"`.',
    }),
  },
  precondition_failed: {
    ETag: Type.String({ description: 'The current entity tag of the animal, present when it still exists.' }),
  },
  idempotency_key_in_flight: {
    'Retry-After': Type.Integer({
      minimum: 1,
      description:
        'Seconds after which a retry with the same key is likely to get the response of the request in progress.',
    }),
  },
  rate_limited: {
    'Retry-After': Type.Integer({
      minimum: 1,
      description: 'Seconds until the window resets and requests are admitted again.',
    }),
    ...RATE_LIMIT_HEADERS,
  },
}

/**
 * Response schemas for the given error codes, keyed by status, each documented with the shared Error body.
 * Codes that share a status (409 `conflict` and `idempotency_key_in_flight`) share one response, described by both.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  const responses: Record<number, TSchema> = {}
  for (const code of codes) {
    const status = ERROR_CODES[code].status
    const previous = responses[status] as { description?: string; headers?: Record<string, TSchema> } | undefined
    const description = whenFor[code] ?? ERROR_CODES[code].meaning
    const headers = { ...previous?.headers, ...headersFor[code] }
    responses[status] = {
      ...ErrorSchema,
      description: previous?.description ? `${previous.description} ${description}` : description,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
    }
  }
  return responses
}

/** The same responses, each also declaring `headers` (e.g. those a hook adds to every answer of the operation). */
export function withHeaders(
  responses: Record<number, TSchema>,
  headers: Record<string, TSchema>,
): Record<number, TSchema> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const previous = (response as { headers?: Record<string, TSchema> }).headers
      return [status, { ...response, headers: { ...previous, ...headers } }]
    }),
  )
}
