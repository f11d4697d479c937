import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import { loggedAddress, redactUrl } from './log-url.js'
import { refusalOf } from './refusal-note.js'
import { answeredForItsParseError } from '../errors/client-errors.js'

/**
 * Fastify's request logging with one line per request instead of two: written once the response has gone
 * out, with what was asked, what was answered, how long it took, from where and with which key. Fastify's
 * default also logs "incoming request" (serialising the request for it): at the request rates this service
 * is built for, that line cost more CPU than the rest of a cached read. It is still written at debug level,
 * for following a request that never completes. A refused request's line carries the refusal's code and
 * message (refusal-note.ts) instead of a line of its own. Fastify's other request-scoped lines (stream and
 * writeHead errors) are kept as they are.
 */
export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request')
  }

  /**
   * A streamed response (an event stream) usually ends when its client goes away: Node then never finishes the
   * response, Fastify reports a premature close instead of completing it, and the request would have no line.
   * Its line is the completed one, with its status and how long the stream lasted, marked as closed by the client.
   */
  override streamError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE') this.#completed(undefined, request, reply, true)
    else super.streamError(error, request, reply)
  }

  /**
   * Requests already given their line by an abort or by a stream's close: a stream its client closes is reported
   * both as a premature close of the response and as an aborted request, and gets one line. (A request completed
   * the ordinary way is not added: nothing reports it again, and the set stays off the path of every request.)
   */
  readonly #logged = new WeakSet<FastifyRequest>()

  /**
   * The client closed its connection before the answer was sent (a long poll given up, a body cut off): the
   * response never finishes, so Fastify never completes it, and without this the request had no line. Written at
   * once, with what is known: no status was sent.
   */
  requestAborted(request: FastifyRequest): void {
    // Answered, counted and logged already, for its body broke off or came too slowly (client-errors.ts).
    if (this.#logged.has(request) || answeredForItsParseError(request.raw)) return
    this.#logged.add(request)
    request.server.countClosedByClient(request, undefined)
    request.log.info(
      {
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: loggedAddress(request),
        keyId: request.principal?.keyId,
        clientClosed: true,
      },
      'request aborted by the client',
    )
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.#completed(error, request, reply, undefined)
  }

  /**
   * A request the router answers before any route (Fastify's frameworkErrors: a path that is not valid
   * percent-encoding, an over-long path segment): Fastify neither times it nor completes it, so without this it
   * had no line. Its line is written once its answer has gone out, timed from here.
   */
  answeredBeforeRouting(request: FastifyRequest, reply: FastifyReply): void {
    const started = performance.now()
    reply.raw.once('finish', () => {
      const responseTime = performance.now() - started
      this.#completed(undefined, request, reply, undefined, responseTime)
      request.server.countAnsweredBeforeRouting(request.method, reply.statusCode, responseTime)
    })
  }

  #completed(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    clientClosed: true | undefined,
    responseTime = reply.elapsedTime,
  ): void {
    if (this.#logged.has(request)) return
    if (clientClosed) {
      this.#logged.add(request)
      // Fastify's onResponse, where the metrics count the others, never runs for it.
      request.server.countClosedByClient(request, { status: reply.statusCode, milliseconds: responseTime })
    }
    const refusal = refusalOf(request)
    const line = {
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      responseTime,
      remoteAddress: loggedAddress(request),
      keyId: request.principal?.keyId,
      // A refused request's code and message (refusal-note.ts), so that this is its only line. Left out of the
      // JSON when undefined, as keyId is without a key.
      code: refusal?.code,
      errorMessage: refusal?.errorMessage,
      clientClosed,
    }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else reply.log.info(line, 'request completed')
  }
}
