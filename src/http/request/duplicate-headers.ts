// Headers that must arrive at most once. Node keeps the first of two Host, Authorization or Content-Type headers
// and drops the second without a word, while a proxy in front may act on the last: the proxy would route,
// authorise or read the body of one request and the service serve another. RFC 9112 section 3.2 requires 400 for
// more than one Host; RFC 9110 section 5.3 allows a field to be repeated only when it is a list, which these are not.
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors/errors.js'

const SINGLE_HEADERS: Record<string, string> = {
  host: 'Host',
  authorization: 'Authorization',
  'content-type': 'Content-Type',
}

/** The refusal for a request that repeats one of these headers, if it does. */
export function duplicateHeaderError(request: FastifyRequest): ApiError | undefined {
  let hostSeen = false
  let authorizationSeen = false
  let contentTypeSeen = false
  const { rawHeaders } = request.raw
  // rawHeaders alternates names and values, as received. This runs on every request: only names of the three
  // lengths are lowered, and nothing is allocated for the names seen.
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const raw = rawHeaders[index] ?? ''
    if (raw.length !== 4 && raw.length !== 13 && raw.length !== 12) continue
    const name = raw.toLowerCase()
    if (name === 'host') {
      if (hostSeen) return repeated(name)
      hostSeen = true
    } else if (name === 'authorization') {
      if (authorizationSeen) return repeated(name)
      authorizationSeen = true
    } else if (name === 'content-type') {
      if (contentTypeSeen) return repeated(name)
      contentTypeSeen = true
    }
  }
  return undefined
}

function repeated(name: string): ApiError {
  return new ApiError('invalid_request', `The ${SINGLE_HEADERS[name] ?? name} header must be sent only once.`, {
    details: [{ path: `header/${name}`, message: 'must be sent only once' }],
  })
}
