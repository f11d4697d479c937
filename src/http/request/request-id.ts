import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { holdsServiceKey } from './log-url.js'

// A client's id is kept only when it is short and harmless in logs and headers.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The least length of any key (static keys have at least 16 characters; stored and metrics keys more). */
const SHORTEST_KEY = 16

/**
 * A request id goes into every log line and back in the response: one that holds a key (of this service's form
 * anywhere in it, or the very credential the request presents, whole or in part) would put a key in the logs,
 * which must never hold one.
 */
function mayBeKey(id: string, request: IncomingMessage): boolean {
  if (holdsServiceKey(id)) return true
  const { authorization } = request.headers
  if (authorization === undefined) return false
  const credential = authorization.slice(authorization.lastIndexOf(' ') + 1)
  return (
    (id.length >= SHORTEST_KEY && authorization.includes(id)) ||
    (credential.length >= SHORTEST_KEY && id.includes(credential))
  )
}

/** Fastify's genReqId: the caller's X-Request-Id when it is sane and no key, otherwise a fresh UUID. */
export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers['x-request-id']
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) && !mayBeKey(given, request) ? given : randomUUID()
}
