import type { FastifyRequest } from 'fastify'
import { ApiError } from './errors.js'

// A Host header that is a plain host name or IP literal with an optional port; anything else could inject
// text into the absolute URLs of Location and Link.
const SAFE_HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/

/** The origin absolute URLs are built on: PUBLIC_BASE_URL when configured, else the request's own. */
export function publicOrigin(request: FastifyRequest, configured: string | undefined): string {
  if (configured) return configured
  const host = request.host
  if (!SAFE_HOST.test(host)) {
    throw new ApiError('invalid_request', 'The Host header is not a valid host name.', { details: [{ path: 'header/host', message: 'is not a host name' }] })
  }
  return `${request.protocol}://${host}`
}
