// `Expect: 100-continue` (RFC 9110 section 10.1.1): the client waits for 100 Continue before it sends its body, so
// that a request refused on its headers alone costs no upload. Node answers 100 itself as an HTTP/1.1 request
// arrives, before any check; with a checkContinue listener it leaves that to the application (and it never sends
// 100 to HTTP/1.0, which the RFC forbids). Here 100 is sent once the request has passed everything its route decides
// before the body is read (the Host, authentication, the key's scope, the rate limit, the method, the declared
// length, the body's media type, coding and charset): a request refused before gets its final status alone, and
// Node closes the connection after it (the client may still send the body it held back). A request no route takes
// goes to the not-found handler, which reads the body before it answers: it gets 100 at once, as Node would have
// sent it.
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify'
import { refusalOnHeaders } from '../json/json-body.js'

/** Fastify reads no body for these: a route that takes only them never waits for one. */
const WITHOUT_BODY = new Set(['GET', 'HEAD'])

/** Whether the request declares a body larger than its route takes (413, refused without asking for the body). */
function declaredTooLarge(request: FastifyRequest): boolean {
  const length = Number(request.headers['content-length'])
  return Number.isFinite(length) && length > request.routeOptions.bodyLimit
}

/** Before any route is added: a request expecting 100 Continue gets it once its route's checks have passed. */
export function continueAfterChecks(app: FastifyInstance): void {
  // The requests that expect 100 and have not had it: only those Node handed to checkContinue (HTTP/1.1).
  const expecting = new WeakSet<IncomingMessage>()
  app.server.on('checkContinue', (request, response) => {
    if (app.findRoute({ method: request.method as 'POST', url: request.url ?? '' }) === null) response.writeContinue()
    else expecting.add(request)
    app.server.emit('request', request, response)
  })
  // After the onRequest hooks, right before Fastify reads the body.
  const sendContinue: preParsingHookHandler = (request, reply: FastifyReply, payload, done) => {
    if (!expecting.delete(request.raw) || reply.raw.headersSent || declaredTooLarge(request)) return done(null, payload)
    // Refused here, not by the body's parser: that one would wait for a body the client holds back. (An operation
    // that takes no body judges none by its headers: it refuses any body it is sent, once sent, which only the
    // parser can tell from no body at all when the length is not declared.)
    const refused = refusalOnHeaders(request)
    if (refused !== undefined) return done(refused)
    reply.raw.writeContinue()
    done(null, payload)
  }
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().every((method) => WITHOUT_BODY.has(method))) return
    route.preParsing = [...[route.preParsing ?? []].flat(), sendContinue]
  })
}
