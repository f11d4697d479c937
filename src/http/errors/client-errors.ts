// Errors Node's HTTP parser raises before Fastify sees a request (oversized headers, a malformed request
// line, a request that took too long to arrive). Fastify's default answers them in its own shape; these get
// the Error body too.
import { randomUUID } from 'node:crypto'
import { Socket } from 'node:net'
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError, errorBody, type ErrorCode } from './errors.js'
import { MESSAGES } from './error-messages.js'
import { CORS_RESPONSE_HEADERS } from '../request/cors.js'
import { redactUrl } from '../request/log-url.js'
import { requestIdFor } from '../request/request-id.js'

const RESPONSES: Record<string, { code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    code: 'request_header_fields_too_large',
    message: MESSAGES.headersTooLarge(),
  },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', message: MESSAGES.requestTimeout() },
}

// A browser's script can read these refusals too (a URL too long for the head limit, a body that came too slowly).
const CORS_LINES = Object.entries(CORS_RESPONSE_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('')

/** Sockets whose parse error waits for the response in flight on them (a second report is the same error). */
const waiting = new WeakSet<Socket>()

/**
 * Requests whose own parse error was answered here (a body cut short, or too slow), and counted. Node also reports
 * them to Fastify as aborted by their client, which must not count them a second time (access-log.ts).
 */
const answeredHere = new WeakSet<IncomingMessage>()

/** Whether `request` was answered here, outside Fastify, for its own parse error. */
export function answeredForItsParseError(request: IncomingMessage): boolean {
  return answeredHere.has(request)
}

type InFlight = NodeJS.EventEmitter & { headersSent: boolean; req?: IncomingMessage }

export function handleClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: InFlight | null })._httpMessage
  // The error is in a request pipelined behind one read whole and still being answered: responses go in the
  // order of the requests (RFC 9112 section 9.3.2), so the refusal waits for that response to finish. Written
  // now, it would take that response's place (a create committed but answered 400) or break its bytes.
  if (inFlight?.req?.complete === true && socket.writable) {
    if (waiting.has(socket)) return
    waiting.add(socket)
    inFlight.once('finish', () => {
      waiting.delete(socket)
      handleClientError.call(this, error, socket)
    })
    return
  }
  // Otherwise the error is the answered request's own (its body broke off, or took too long): a response already
  // under way cannot be followed by a second status line, and Node's own handler drops such sockets too.
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy()
    return
  }
  const { code, message } = RESPONSES[error.code ?? ''] ?? {
    code: 'invalid_request' as const,
    message: 'The request could not be parsed as HTTP/1.1.',
  }
  // The answer to a HEAD request has no body (RFC 9110 section 9.3.2), also when its headers could not be parsed.
  const { rawPacket } = error as { rawPacket?: unknown }
  const head = Buffer.isBuffer(rawPacket) && rawPacket.subarray(0, 5).toString('latin1') === 'HEAD '
  if (inFlight?.req) answeredHere.add(inFlight.req)
  endWithError(this, socket, code, message, { head, request: inFlight?.req })
}

/**
 * Writes the Error body as the connection's last response, outside Fastify, closes the connection, and writes the
 * request's line in the access log, as every answered request has one, and counts it in the metrics: `method` when
 * it could be read (CONNECT), and no URL (the parser could not read one, and a tunnel's target is not a path).
 * Except with `request`, the request whose body broke off or came too slowly after its head was read whole: the
 * line is that request's, with its id, method and URL, and the abort Node reports for it next writes none
 * (access-log.ts). Its count keeps the unparsed labels, as the router never saw it.
 */
function endWithError(
  app: FastifyInstance,
  socket: Duplex,
  code: ErrorCode,
  message: string,
  { head = false, method, request }: { head?: boolean; method?: string; request?: IncomingMessage | undefined },
): void {
  const started = performance.now()
  // Read first: once the connection has ended, the socket may no longer know its peer.
  const remoteAddress = socket instanceof Socket ? socket.remoteAddress : undefined
  const requestId = request ? requestIdFor(request) : randomUUID()
  const body = JSON.stringify(errorBody(code, message))
  const status = errorBody(code, message).status
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      'X-Content-Type-Options: nosniff\r\n' +
      'Cache-Control: no-store\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      CORS_LINES +
      '\r\n' +
      (head ? '' : body),
  )
  const responseTime = performance.now() - started
  app.countAnsweredBeforeRouting(method, status, responseTime)
  app.log.info(
    {
      reqId: requestId,
      ...(method === undefined ? {} : { method }),
      ...(request === undefined ? {} : { method: request.method, url: redactUrl(request.url ?? '') }),
      statusCode: status,
      responseTime,
      remoteAddress,
      code,
      errorMessage: message,
    },
    'request completed',
  )
}

/**
 * CONNECT asks the server to open a tunnel, as a proxy does (RFC 9110 section 9.3.6); Node hands it to the
 * server's 'connect' listener rather than to Fastify, and without one closed the connection unanswered. This
 * server is not a proxy: the request is refused with the Error body, and the connection closed (whatever the
 * client sent after it would be the tunnel's bytes, not requests). Node takes its own error listener off the
 * socket before handing it over: without this one, a client that resets the connection (ECONNRESET) would raise
 * an uncaught exception and stop the process.
 */
export function refuseConnect(app: FastifyInstance): void {
  app.server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy())
    endWithError(app, socket, 'invalid_request', MESSAGES.connectRefused(), { method: 'CONNECT' })
  })
}

/**
 * Two requests Node answers itself, bare (no Error body, none of the headers every response has), unless told
 * not to: an HTTP/1.1 request without Host, which RFC 9112 section 3.2 requires to be refused with 400, and an
 * Expect other than 100-continue, which RFC 9110 section 10.1.1 allows (not requires) to be refused with 417.
 * Both are handed to Fastify instead: the first is refused there with the Error body (missingHostError, in the
 * first hook), the second is served as if the expectation were absent.
 */
export function handOverRequestsNodeWouldRefuse(app: FastifyInstance): void {
  const server = app.server as Server & { requireHostHeader: boolean }
  server.requireHostHeader = false
  server.on('checkExpectation', (request, response) => server.emit('request', request, response))
}

/** The refusal of an HTTP/1.1 request without Host (RFC 9112 section 3.2), or of an empty Host, if it is one. */
export function missingHostError(request: FastifyRequest): ApiError | undefined {
  const { httpVersionMajor, httpVersionMinor } = request.raw
  const { host } = request.headers
  // An http URI's authority has a host: an empty one is invalid whatever the version (RFC 9110 section 4.2.1).
  if (host === '')
    return new ApiError('invalid_request', 'The Host header must name a host.', {
      details: [{ path: 'header/host', message: 'must not be empty' }],
    })
  if (httpVersionMajor !== 1 || httpVersionMinor < 1 || host !== undefined) return undefined
  return new ApiError('invalid_request', 'An HTTP/1.1 request must have a Host header.', {
    details: [{ path: 'header/host', message: 'is required' }],
  })
}
