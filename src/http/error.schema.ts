import { Type, type TSchema } from 'typebox'
import { ERROR_CODES, type ErrorCode } from './errors.js'

const codeDescription = Object.entries(ERROR_CODES)
  .map(([code, entry]) => `- \`${code}\` (${entry.status}): ${entry.meaning}`)
  .join('\n')

export const ErrorSchema = Type.Object(
  {
    code: Type.String({ enum: Object.keys(ERROR_CODES), description: `Machine-readable error code:\n${codeDescription}` }),
    message: Type.String({ description: 'Human-readable description of the problem.' }),
    status: Type.Integer({ format: 'int32', minimum: 400, maximum: 599, description: 'The HTTP status code of the response.' }),
    details: Type.Optional(
      Type.Array(
        Type.Object(
          {
            path: Type.String({ description: 'The request part and a JSON pointer into it, e.g. `body/categoryId` or `query/limit`.' }),
            message: Type.String(),
          },
          { additionalProperties: false },
        ),
        { description: 'Each problem found, where it was found: for invalid_request, and for not_found when the missing resource was named in the request (e.g. `body/petId`).' },
      ),
    ),
  },
  { additionalProperties: false, description: 'The body of every error response.' },
)

const whenFor: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'The request is malformed (code `invalid_request`).',
  unauthorized: 'The API key is missing or invalid (code `unauthorized`); see WWW-Authenticate.',
  not_found: 'Not found (code `not_found`).',
  method_not_allowed: 'Method not allowed (code `method_not_allowed`).',
  conflict: 'The current state does not allow this transition (code `conflict`); nothing was changed.',
  payload_too_large: 'The body is larger than 16 KiB (code `payload_too_large`).',
  unsupported_media_type: 'The body is not application/json (code `unsupported_media_type`).',
  internal_error: 'Unexpected failure (code `internal_error`); internals are never shown.',
  unavailable: 'Shutting down or database unreachable (code `unavailable`).',
}

/** Response schemas for the given error codes, keyed by status, each documented with the shared Error body. */
export function errorResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  const responses: Record<number, TSchema> = {}
  for (const code of codes) {
    responses[ERROR_CODES[code].status] = { ...ErrorSchema, description: whenFor[code] ?? ERROR_CODES[code].meaning }
  }
  return responses
}
