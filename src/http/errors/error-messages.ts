// The message of each refusal the HTTP layer makes, as a function of what varies. The code that refuses calls
// these, and the OpenAPI document's error examples (error-examples.ts) are made by calling them too, so an
// example always says what the service says. The services' own messages are made the same way (domain/errors.ts).
import { BODY_LIMIT_BYTES, HEADER_LIMIT_BYTES, inKiB } from '../limits.js'

export const MESSAGES = {
  invalidRequest: (summary: string) => `Invalid request: ${summary}`,
  keyRequired: () => 'An API key is required: send Authorization: Bearer <key>.',
  scopeMissing: (scope: string) => `This API key does not have the scope ${scope}, which this operation requires.`,
  methodNotAllowed: (method: string, allow: string) => `${method} is not allowed on this resource; allowed: ${allow}.`,
  connectRefused: () => 'This server is not a proxy: CONNECT is not served.',
  requestTimeout: () => 'The request was not received in time.',
  headersTooLarge: () => `The request line and headers are larger than the ${inKiB(HEADER_LIMIT_BYTES)} limit.`,
  bodyTooLarge: () => `The request body is larger than the ${inKiB(BODY_LIMIT_BYTES)} limit.`,
  mediaTypeRequired: (accepted: readonly string[]) =>
    `The request body must be sent as Content-Type: ${accepted.join(' or ')}.`,
  idempotencyKeyInFlight: () =>
    'A request with this Idempotency-Key is still being processed; retry later to get its response.',
  idempotencyKeyReused: () =>
    'This Idempotency-Key was already used for a different request (another operation, resource, body or condition); ' +
    'send a new key for a new request.',
  keyQuotaUsed: (max: number, window: number, retryAfter: number) =>
    `This API key has used its ${max} requests per ${window} s; retry in ${retryAfter} s.`,
  addressQuotaUsed: (max: number, window: number, retryAfter: number) =>
    `Too many requests without a valid API key from this address (${max} per ${window} s); retry in ${retryAfter} s.`,
  publicQuotaUsed: (max: number, window: number, retryAfter: number) =>
    `Too many requests from this address (${max} per ${window} s); retry in ${retryAfter} s.`,
  internalError: () => 'The service failed to complete the request. Quote the X-Request-Id when reporting it.',
  databaseUnreachable: () => 'The database cannot be reached right now; retry the request.',
}
