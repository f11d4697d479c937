import type { FastifyReply, FastifyRequest } from 'fastify'
import { API_PREFIX, requestPath } from '../paths.js'

const API_PATH_START = `${API_PREFIX}/`

/** Headers that keep API responses out of caches and stop browsers from guessing content types. */
export function applySecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff')
  if (isApiPath(request)) reply.header('cache-control', 'no-store')
}

function isApiPath(request: FastifyRequest): boolean {
  // Almost every request: a target that starts with the prefix as written is an API path whatever follows, as
  // decoding cannot change characters that are not escaped. Only the others need requestPath's full reading.
  if (request.url.startsWith(API_PATH_START)) return true
  const path = requestPath(request)
  return path === API_PREFIX || path.startsWith(API_PATH_START)
}
