// CORS for browser clients: any origin (the API is authenticated by key, never by cookie), the request headers
// the API reads, and the response headers a script may read.
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'

/** The response headers a script may read (Access-Control-Expose-Headers). */
export const EXPOSED_HEADERS = [
  'Link',
  'Location',
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'WWW-Authenticate',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'Idempotent-Replayed',
  'ETag',
  // What a refusal names for the retry: the methods a path takes (405), the patch formats (415 of a PATCH), and
  // the content coding the service reads (415 of a coded body).
  'Allow',
  'Accept-Patch',
  'Accept-Encoding',
] as const

/**
 * What CORS adds to every response that is not a preflight's. Any origin makes them constant, so the responses
 * answered before the CORS hook runs (a refusal by the first hook, a path the router cannot read, a request
 * Node cannot parse) carry the same two.
 */
export const CORS_RESPONSE_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', '),
} as const

export async function registerCors(app: FastifyInstance): Promise<void> {
  await app.register(cors, {
    origin: CORS_RESPONSE_HEADERS['Access-Control-Allow-Origin'],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'X-Request-Id',
      'Idempotency-Key',
      'If-Match',
      'If-None-Match',
      'Last-Event-ID',
    ],
    exposedHeaders: [...EXPOSED_HEADERS],
    strictPreflight: false,
    maxAge: 600,
  })
}
