// CORS for browser clients: any origin (the API is authenticated by key, never by cookie), the request headers
// the API reads, and the response headers a script may read.
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'

export async function registerCors(app: FastifyInstance): Promise<void> {
  await app.register(cors, {
    origin: '*',
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
    exposedHeaders: [
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
    ],
    strictPreflight: false,
    maxAge: 600,
  })
}
