// A 304 stands for the representation a 200 would have sent, so it may only carry that one's Content-Length, or
// none (RFC 9110 section 8.6). Fastify's automatic HEAD route gives every answer without a payload
// `Content-Length: 0` (its head-route.js), its 304 included, and 0 is not the length of the 200; so a HEAD route's
// 304 leaves without one, like the 304 to GET, on which Fastify sets none.
import type { FastifyInstance, onSendHookHandler } from 'fastify'

const withoutLength: onSendHookHandler = (_request, reply, payload, done) => {
  if (reply.statusCode === 304) reply.removeHeader('content-length')
  done(null, payload)
}

/** For every HEAD route added after it: its own onSend handlers, Fastify's HEAD handler among them, run first. */
export function omitLengthOfNotModified(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.method !== 'HEAD') return
    route.onSend = [...[route.onSend ?? []].flat(), withoutLength]
  })
}
