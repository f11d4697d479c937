// The Idempotency-Key request header (draft-ietf-httpapi-idempotency-key-header) and the header that marks a
// replayed response, as they appear in the route schemas and so in the OpenAPI document.
import { Type } from 'typebox'
import { IdempotentReplayedHeader } from '../http/openapi/response-headers.js'
import { withPatternRule } from '../http/validation/validation-details.js'

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key'
export const REPLAYED_HEADER = 'idempotent-replayed'

/**
 * For the `headers` schema of every unsafe operation (POST, PATCH, DELETE). Validation reports problems at
 * `header/idempotency-key`.
 */
export const IdempotencyHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    withPatternRule(
      Type.String({
        minLength: 1,
        maxLength: 255,
        // Visible ASCII: what arrives intact in an HTTP header. The draft's quoted form ("…") is visible ASCII
        // too; the value is compared exactly as sent, quotes included.
        pattern: '^[\\x21-\\x7E]*$',
        description:
          'Makes the request safe to retry: 1 to 255 visible ASCII characters, unique per request (a random UUID ' +
          'is a good choice). ' +
          'A retry with the same key and the same request (operation, path, body and conditional headers) gets the ' +
          "first request's response again, with `Idempotent-Replayed: true`, and changes nothing; " +
          'the same key with a different request is 422 `idempotency_key_reused`; while the first request is still ' +
          'being processed, 409 `idempotency_key_in_flight`. ' +
          'Keys belong to the API key that sent them and are kept for 24 hours after the response, unless the ' +
          'operator set another period. Without the ' +
          'header the request is simply not deduplicated.',
        examples: ['5f0c6b2e-3d1a-4c8e-9b7f-2a4d6e8f0b1c'],
      }),
      'must be visible ASCII characters only, without spaces',
    ),
  ),
})

/** The response header a replay carries, for the documented success responses. */
export const ReplayedHeaderSchema = { 'Idempotent-Replayed': IdempotentReplayedHeader }
