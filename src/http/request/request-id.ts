import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

// A client's id is kept only when it is short and harmless in logs and headers.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Fastify's genReqId: the caller's X-Request-Id when it is sane, otherwise a fresh UUID. */
export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers['x-request-id']
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID()
}
