// Exact checks for the one error shape: status, content type, X-Request-Id and the whole Error body.
import assert from 'node:assert/strict'
import type { RawResponse } from './raw-http.js'

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** The CORS headers of every response but a preflight's, refusals made before any hook included. */
export const CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'Link, Location, X-Request-Id, Deprecation, Sunset, WWW-Authenticate, Retry-After, RateLimit, ' +
    'RateLimit-Policy, Idempotent-Replayed, ETag, Allow, Accept-Patch, Accept-Encoding',
}

export interface ExpectedError {
  status: number
  code: string
  message: string
  details?: { path: string; message: string }[]
}

function check(
  status: number,
  header: (name: string) => string | null,
  text: string,
  expected: ExpectedError,
  headers: Record<string, string | null>,
): string {
  assert.equal(status, expected.status, `status; body was ${text}`)
  assert.equal(header('content-type'), JSON_CONTENT_TYPE)
  assert.equal(header('x-content-type-options'), 'nosniff')
  const body: unknown = JSON.parse(text)
  const { status: expectedStatus, code, message, details } = expected
  assert.deepEqual(body, { code, message, status: expectedStatus, ...(details ? { details } : {}) })
  for (const [name, value] of Object.entries(headers)) assert.equal(header(name), value, `header ${name}`)
  const requestId = header('x-request-id')
  assert.ok(requestId, 'X-Request-Id is present')
  return requestId
}

/**
 * Asserts an error response exactly; `headers` lists further headers and their exact values (null: absent). Returns the
 * X-Request-Id.
 */
export async function assertError(
  response: Response,
  expected: ExpectedError,
  headers: Record<string, string | null> = {},
): Promise<string> {
  return check(response.status, (name) => response.headers.get(name), await response.text(), expected, headers)
}

export function assertRawError(
  response: RawResponse,
  expected: ExpectedError,
  headers: Record<string, string | null> = {},
): string {
  return check(response.status, (name) => response.headers[name] ?? null, response.body, expected, headers)
}

/** The 422 of an Idempotency-Key sent again with another request. */
export const IDEMPOTENCY_KEY_REUSED = {
  status: 422,
  code: 'idempotency_key_reused',
  message:
    'This Idempotency-Key was already used for a different request (another operation, resource, body or ' +
    'condition); send a new key for a new request.',
}
