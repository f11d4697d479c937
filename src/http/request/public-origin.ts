import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors/errors.js'

// A Host header that is a registered name of unreserved characters (RFC 3986 section 2.3: letters, digits, `-`, `.`,
// `_`, `~`; `_` is common in container and service names) or an IP literal, with an optional port (at most 65535);
// anything else could inject text into the absolute URLs of Location and Link, or make them unusable.
const SAFE_HOST = /^(?:[\w~-]+(?:\.[\w~-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::([0-9]{1,5}))?$/
const MAX_PORT = 65535
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)/i

/** Whether `host` (a Host value, or the authority of an absolute-form target) can go into an absolute URL. */
export function isSafeHost(host: string): boolean {
  const port = SAFE_HOST.exec(host)
  return port !== null && (port[1] === undefined || Number(port[1]) <= MAX_PORT)
}

/**
 * The origin absolute URLs are built on: PUBLIC_BASE_URL when configured, else the request's own: the host of an
 * absolute-form target, else Host (or the host a trusted proxy forwarded). An HTTP/1.0
 * request may come without Host (HTTP/1.1 ones are refused without it): its links name the address and port
 * the connection reached, which is where the client did find the service.
 */
export function publicOrigin(request: FastifyRequest, configured: string | undefined): string {
  if (configured) return configured
  const protocol = schemeOf(request)
  const target = targetAuthority(request)
  if (target !== undefined) {
    if (!isSafeHost(target))
      throw new ApiError('invalid_request', 'The host of the request target is not a valid host name.')
    return `${protocol}://${target}`
  }
  const host = request.host
  if (!host) return `${protocol}://${listeningAddress(request)}`
  if (!isSafeHost(host)) {
    throw new ApiError('invalid_request', 'The Host header is not a valid host name.', {
      details: [{ path: 'header/host', message: 'is not a host name' }],
    })
  }
  return `${protocol}://${host}`
}

/**
 * The scheme of the request: the connection's, or the one a trusted proxy forwarded (X-Forwarded-Proto), which
 * must be http or https like the origin it goes into (`javascript`, or any other text, would make Location and Link
 * name another kind of URL).
 */
function schemeOf(request: FastifyRequest): 'http' | 'https' {
  const protocol = request.protocol.toLowerCase()
  if (protocol === 'http' || protocol === 'https') return protocol
  throw new ApiError('invalid_request', 'The X-Forwarded-Proto header is not http or https.', {
    details: [{ path: 'header/x-forwarded-proto', message: 'must be http or https' }],
  })
}

/**
 * The host of an absolute-form target (`GET http://host/v1/pets`), which RFC 9112 section 3.2.2 makes the request's
 * host whatever Host says; undefined for an origin-form target, or when a trusted proxy forwarded the host.
 */
function targetAuthority(request: FastifyRequest): string | undefined {
  const url = request.raw.url ?? ''
  if (url.startsWith('/') || request.host !== (request.headers.host ?? '')) return undefined
  return absoluteFormAuthority(url)
}

/** The authority of a request target in absolute form (`http://host:port/…`); undefined for any other form. */
export function absoluteFormAuthority(target: string): string | undefined {
  return ABSOLUTE_FORM.exec(target)?.[1]
}

function listeningAddress(request: FastifyRequest): string {
  const { localAddress = '127.0.0.1', localPort } = request.socket
  // An IPv6 literal goes in brackets, without its zone (`%eth0`), which a URL cannot carry as it is.
  const address = localAddress.includes(':') ? `[${localAddress.replace(/%.*$/, '')}]` : localAddress
  return localPort === undefined ? address : `${address}:${localPort}`
}
