// Bearer authentication (RFC 6750). Runs as the first hook of the API scope, before the body is read,
// before validation and before any lookup: a request without a valid key learns nothing else.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Authenticator, Principal } from '../keys/authenticator.js'
import { ApiError } from './errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | undefined
  }
}

const REALM = 'Bearer realm="petstore"'
// RFC 6750 section 2.1: the scheme is case-insensitive. The token may be any visible ASCII, wider than the
// b64token grammar, because static keys (PETSTORE_API_KEYS) allow such characters; validity is decided by
// the digest comparison, not by the grammar.
const BEARER = /^Bearer +([\x21-\x7E]+) *$/i

export async function authenticateRequest(request: FastifyRequest, authenticator: Authenticator): Promise<Principal> {
  const header = request.headers.authorization
  if (header === undefined || header === '') {
    throw new ApiError('unauthorized', 'An API key is required: send Authorization: Bearer <key>.', { headers: { 'www-authenticate': REALM } })
  }
  const token = BEARER.exec(header)?.[1]
  const principal = token === undefined ? undefined : await authenticator.authenticate(token)
  if (!principal) {
    throw new ApiError('unauthorized', 'The API key is not valid.', {
      headers: { 'www-authenticate': `${REALM}, error="invalid_token", error_description="The API key is not valid"` },
    })
  }
  request.principal = principal
  return principal
}

/** Adds authentication to every route of the scope it is called in. */
export function requireApiKey(app: FastifyInstance, authenticator: Authenticator): void {
  app.addHook('onRequest', async (request) => {
    await authenticateRequest(request, authenticator)
  })
}
