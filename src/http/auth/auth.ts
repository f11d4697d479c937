// Bearer authentication (RFC 6750), rate limiting and scopes, in that order. Runs as the first hook of the API
// scope, before the body is read, before validation and before any lookup: a request without a valid key
// learns nothing else.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Authenticator, Principal } from './authenticator.js'
import type { Scope } from './scopes.js'
import { ApiError } from '../errors/errors.js'
import type { RateLimiter } from './rate-limit.js'
import { MESSAGES } from '../errors/error-messages.js'
import { bearerToken } from './bearer-credential.js'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | undefined
  }
  interface FastifyInstance {
    /** In the API's scope: see keyStillAuthorized. */
    stillAuthorized(request: FastifyRequest): Promise<boolean>
  }
  interface FastifyContextConfig {
    /** The scope a key needs for this route; checked once the key is authenticated and counted. */
    scope?: Scope
    /**
     * The key may come as the `access_token` query parameter (RFC 6750 section 2.3) instead of the header: only
     * for a route a browser must open with an API that cannot send headers (EventSource).
     */
    acceptsAccessTokenQuery?: boolean
  }
}

/** `request.principal`: who sent the request, once guardApi has authenticated it. */
export function decoratePrincipal(app: FastifyInstance): void {
  app.decorateRequest('principal', undefined)
}

export interface ApiGuard {
  authenticator: Authenticator
  rateLimiter: RateLimiter
}

const REALM = 'Bearer realm="petstore"'

/**
 * `access_token` where the route accepts it (as a header would carry it), or what refuses it; undefined when absent.
 */
function queryToken(request: FastifyRequest): string | ApiError | undefined {
  if (!request.routeOptions.config.acceptsAccessTokenQuery) return undefined
  const token = (request.query as Record<string, unknown> | undefined)?.access_token
  if (token === undefined) return undefined
  // RFC 6750 section 2: a client must not send the token in more than one way.
  if (request.headers.authorization !== undefined || typeof token !== 'string') {
    return new ApiError(
      'invalid_request',
      'Send the API key once: in Authorization or as access_token, not both, and access_token at most once.',
      {
        details: [{ path: 'query/access_token', message: 'must be the only credential' }],
      },
    )
  }
  return `Bearer ${token}`
}

/**
 * The key the request presents: the Bearer token, or '' for a malformed Bearer credential; or its refusal. A
 * request without one, or with another scheme (Basic, a bare key), is refused as having no key, with a challenge
 * that carries no error code (RFC 6750 section 3.1).
 */
function presentedKey(request: FastifyRequest): string | ApiError {
  const fromQuery = queryToken(request)
  if (fromQuery instanceof ApiError) return fromQuery
  const token = bearerToken(fromQuery ?? request.headers.authorization)
  if (token === undefined) {
    return new ApiError('unauthorized', MESSAGES.keyRequired(), {
      headers: { 'www-authenticate': REALM },
    })
  }
  return token
}

/** The 401 of a Bearer key that is not (or no longer) valid: unknown, revoked or expired. */
export function invalidKey(): ApiError {
  return new ApiError('unauthorized', 'The API key is not valid.', {
    headers: { 'www-authenticate': `${REALM}, error="invalid_token", error_description="The API key is not valid"` },
  })
}

/** Sets request.principal for a valid key; otherwise returns the 401 to answer. */
function identify(request: FastifyRequest, presented: string | ApiError, principal: Principal | undefined) {
  if (presented instanceof ApiError) return presented
  if (!principal) return invalidKey()
  request.principal = principal
  return undefined
}

/** Throws the refusal of an unidentified request, or of a key without the route's scope. */
function conclude(request: FastifyRequest, refusal: ApiError | undefined): void {
  if (refusal) throw refusal
  const scope = request.routeOptions.config.scope
  if (scope !== undefined && !request.principal?.scopes.includes(scope)) {
    // RFC 6750 section 3.1: insufficient_scope, with the scope that would have been enough.
    throw new ApiError('forbidden', MESSAGES.scopeMissing(scope), {
      headers: { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"` },
    })
  }
}

/** Counts the request, then concludes: at once when the counters are in memory. */
function countAndConclude(
  request: FastifyRequest,
  reply: FastifyReply,
  guard: ApiGuard,
  refusal: ApiError | undefined,
): Promise<void> | undefined {
  // Counted before a bad key is refused, against the client address: a flood of bad keys stays cheap.
  const counted = guard.rateLimiter.check(request, reply)
  if (counted) return counted.then(() => conclude(request, refusal))
  conclude(request, refusal)
  return undefined
}

/**
 * Authenticates, counts the request against its quota, and checks the route's scope; throws the refusal (or
 * returns a promise that rejects with it). Nothing waits for a static key with the counters in memory; a
 * stored key is looked up (a database failure rejects: 503).
 */
export function guardRequest(request: FastifyRequest, reply: FastifyReply, guard: ApiGuard): Promise<void> | undefined {
  // At an address known to be over its anonymous quota, a request whose key cannot be valid (none, not of a key's
  // form, or looked up lately and not found, or not among the active keys) is refused before any lookup of its
  // own: otherwise every request of a bad-key flood, although answered 429, would still cost a database query.
  // A key that may be valid is looked up, and
  // a valid one is counted against its own quota only: the anonymous traffic of its address never refuses it.
  const presented = presentedKey(request)
  const connection = request.raw.socket
  // Asked (only at a spent address) as soon as the request arrives: a key it does not know is compared with the
  // digests of a reading of every active key that begins no sooner.
  const spentAddress = guard.rateLimiter.refuseSpentAddress(request, reply, () => {
    if (typeof presented !== 'string' || presented === '') return 'invalid'
    const recalled = guard.authenticator.recall(presented, connection)
    if (recalled !== 'unknown') return recalled
    return guard.authenticator.recallAfterReading(presented, connection, performance.now())
  })
  if (spentAddress) return spentAddress.then(() => identifyAndCount(request, reply, guard, presented, connection))
  return identifyAndCount(request, reply, guard, presented, connection)
}

/** guardRequest once the address's spent quota has let the request through. */
function identifyAndCount(
  request: FastifyRequest,
  reply: FastifyReply,
  guard: ApiGuard,
  presented: string | ApiError,
  connection: object,
): Promise<void> | undefined {
  if (typeof presented !== 'string' || presented === '')
    return countAndConclude(request, reply, guard, identify(request, presented, undefined))
  const staticKey = guard.authenticator.staticKey(presented, connection)
  if (staticKey) return countAndConclude(request, reply, guard, identify(request, presented, staticKey))
  return guard.authenticator
    .authenticate(presented, connection)
    .then((principal) => countAndConclude(request, reply, guard, identify(request, presented, principal)))
}

/**
 * Whether the key a request was let in with still holds for its route: not revoked, not expired, its scope still
 * granted. For a response that outlives the check at its start (an event stream, which asks again before it
 * sends: event-stream.ts; a long poll, before it answers after its wait: event.routes.ts), so that revoking a key
 * also ends what it already has open. A stored key is read again only when the database changed since its last
 * reading (the authenticator's cache).
 */
async function keyStillAuthorized(request: FastifyRequest, authenticator: Authenticator): Promise<boolean> {
  const presented = presentedKey(request)
  if (typeof presented !== 'string' || presented === '') return false
  const connection = request.raw.socket
  const principal =
    authenticator.staticKey(presented, connection) ?? (await authenticator.authenticate(presented, connection))
  const scope = request.routeOptions.config.scope
  return principal !== undefined && (scope === undefined || principal.scopes.includes(scope))
}

/** Adds authentication, rate limiting and scope checks to every route of the scope it is called in. */
export function guardApi(app: FastifyInstance, guard: ApiGuard): void {
  app.decorate('stillAuthorized', (request: FastifyRequest) => keyStillAuthorized(request, guard.authenticator))
  // Callback style, so that a request that needs no waiting goes on without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    let pending: Promise<void> | undefined
    try {
      pending = guardRequest(request, reply, guard)
    } catch (error) {
      done(error instanceof Error ? error : new Error(String(error)))
      return
    }
    if (pending) pending.then(() => done(), done)
    else done()
  })
}
