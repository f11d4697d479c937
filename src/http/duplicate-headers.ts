// Headers that must arrive at most once. Node keeps the first of two Host or Authorization headers and drops
// the second without a word, while a proxy in front may act on the last: the proxy would route or authorise
// one request and the service serve another. RFC 9112 section 3.2 requires 400 for more than one Host.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from './errors.js'

const SINGLE_HEADERS: Record<string, string> = { host: 'Host', authorization: 'Authorization' }

/** The refusal for a request that repeats one of these headers, if it does. */
export function duplicateHeaderError(request: FastifyRequest): ApiError | undefined {
  const seen = new Set<string>()
  const { rawHeaders } = request.raw
  // rawHeaders alternates names and values, as received.
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] ?? '').toLowerCase()
    const shown = SINGLE_HEADERS[name]
    if (shown === undefined) continue
    if (seen.has(name)) {
      return new ApiError('invalid_request', `The ${shown} header must be sent only once.`, {
        details: [{ path: `header/${name}`, message: 'must be sent only once' }],
      })
    }
    seen.add(name)
  }
  return undefined
}

/** Refuses repeated Host and Authorization headers before anything (authentication included) reads them. */
export function refuseDuplicateHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done(duplicateHeaderError(request))
  })
}
