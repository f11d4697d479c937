// Request quotas (@fastify/rate-limit): per API key, and per client address for requests without a valid key.
// Counters live in Redis when REDIS_URL is set, so that every instance draws on one quota, and in memory
// otherwise. The headers follow draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` and `RateLimit`.
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import type { Redis } from 'ioredis'
import type { Config } from '../../config.js'
import { ApiError } from '../errors/errors.js'
import { clientNetwork, requestAddress } from './client-network.js'
import { SpentAddresses } from './spent-addresses.js'
import { WindowCounts, type WindowCount } from './window-counts.js'
import { MESSAGES } from '../errors/error-messages.js'

export type RateLimitSettings = Pick<
  Config,
  'rateLimitPerKey' | 'rateLimitAnonymous' | 'rateLimitWindowSeconds' | 'rateLimitNamespace'
>

export interface RateLimiter {
  /**
   * Counts the request against its key (request.principal) or, without one, its client address; sets the
   * RateLimit headers; throws `rate_limited` once the quota of the window is used up. Synchronous (returns
   * undefined) when the counters are in memory; a promise when they are in Redis.
   */
  check(request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined
  /**
   * Refuses with `rate_limited`, without asking the store, when this process has seen the client address spend its
   * anonymous quota in the current window and the request's key is not valid: called before the key is looked up,
   * so that a flood of bad keys costs no query per request once it is over quota, while a valid key from that
   * address is looked up and counted against its own quota. `recall` says what is known of the key without a
   * query, or a promise of it once a key it does not know has been compared with every active key's digest
   * (readings shared, at most ten a second per process). Returns that promise, rejected with the refusal; throws
   * at once when nothing needs waiting for.
   */
  refuseSpentAddress(
    request: FastifyRequest,
    reply: FastifyReply,
    recall: () => 'valid' | 'invalid' | Promise<'valid' | 'invalid'>,
  ): Promise<void> | undefined
  /**
   * onRequest hook of the public routes (documents, /docs, /metrics, the index): the anonymous quota per
   * client address, counted apart from the API's, so that reading the documentation does not use up the
   * quota of a client's API calls (and the reverse).
   */
  limitPublicRoute: onRequestAsyncHookHandler
}

/** After the shared store fails, requests are admitted without asking it for this long, then it is tried again. */
const FAIL_OPEN_MS = 1_000

const POLICY = '"default"'

/**
 * Counts kept in memory at most, for keys and for client addresses each (the least recently counted are forgotten
 * first). Apart, so that a client with many addresses (an IPv6 /48 holds 65,536 /64 networks) cannot push a
 * key's count out and renew its quota.
 */
const IN_MEMORY_KEYS = 10_000

/** Requests counted in the public bucket of their address rather than by key or in the API's anonymous bucket. */
const publicRequests = new WeakSet<FastifyRequest>()

const KEY_COUNTER = 'key:'

function counterKey(request: FastifyRequest): string {
  if (publicRequests.has(request)) return `public:${clientNetwork(requestAddress(request))}`
  return request.principal ? `${KEY_COUNTER}${request.principal.keyId}` : `ip:${clientNetwork(requestAddress(request))}`
}

// Fail-open: rate limiting protects the service, it must never be what takes it down. While Redis cannot be
// reached, requests are answered without counting (and without RateLimit headers, which would be guesses);
// the outage is logged once, and counting resumes by itself when Redis answers again.
export async function registerRateLimit(
  app: FastifyInstance,
  settings: RateLimitSettings,
  redis: Redis | undefined,
): Promise<RateLimiter> {
  const window = settings.rateLimitWindowSeconds
  await app.register(rateLimit, {
    // Not on every route: the API scope and the public routes run the check themselves (health checks never).
    global: false,
    ...(redis ? { redis, nameSpace: `${settings.rateLimitNamespace}:` } : { cache: IN_MEMORY_KEYS }),
    timeWindow: window * 1000,
    max: (request) => (request.principal ? settings.rateLimitPerKey : settings.rateLimitAnonymous),
    keyGenerator: counterKey,
    // Store errors reach count(), which fails open and logs.
    skipOnError: false,
  })
  // The limiter without the plugin's own reply handling: it answers with the counts, so that the headers
  // and the 429 take this service's form (the Error body, the IETF draft headers).
  const count = app.createRateLimit()
  const spent = new SpentAddresses()
  let failingUntil = 0
  let failing = false

  function refuse(request: FastifyRequest, reply: FastifyReply, max: number, resetSeconds: number): never {
    const retryAfter = Math.max(1, resetSeconds)
    reply.header('ratelimit-policy', `${POLICY};q=${max};w=${window}`)
    reply.header('ratelimit', `${POLICY};r=0;t=${resetSeconds}`)
    const message = (
      publicRequests.has(request)
        ? MESSAGES.publicQuotaUsed
        : request.principal
          ? MESSAGES.keyQuotaUsed
          : MESSAGES.addressQuotaUsed
    )(max, window, retryAfter)
    throw new ApiError('rate_limited', message, { headers: { 'retry-after': String(retryAfter) } })
  }

  function failOpen(error: unknown): void {
    failingUntil = performance.now() + FAIL_OPEN_MS
    if (!failing)
      app.log.warn(
        { err: error },
        'the rate-limit store failed; requests are admitted without rate limits until it answers again',
      )
    failing = true
  }

  function apply(request: FastifyRequest, reply: FastifyReply, result: WindowCount): void {
    const reset = Math.max(0, result.ttlInSeconds)
    // The last request the quota admits marks the address as spent: the next ones are refused before any lookup.
    if (!request.principal && !publicRequests.has(request) && result.remaining === 0)
      spent.add(clientNetwork(requestAddress(request)), performance.now() + result.ttl)
    if (result.isExceeded) refuse(request, reply, result.max, reset)
    reply.header('ratelimit-policy', `${POLICY};q=${result.max};w=${window}`)
    reply.header('ratelimit', `${POLICY};r=${result.remaining};t=${reset}`)
  }

  async function checkShared(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (performance.now() < failingUntil) return
    let result: Awaited<ReturnType<typeof count>>
    try {
      result = await count(request)
    } catch (error) {
      failOpen(error)
      return
    }
    if (failing) app.log.info('the rate-limit store answers again; rate limits apply')
    failing = false
    if (!result.isAllowed) apply(request, reply, result)
  }

  // In memory nothing needs to wait: counted at once, which spares every request the store's promises.
  const local = redis
    ? undefined
    : {
        keys: new WindowCounts(window * 1000, IN_MEMORY_KEYS),
        addresses: new WindowCounts(window * 1000, IN_MEMORY_KEYS),
      }
  function check(request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
    if (!local) return checkShared(request, reply)
    const max = request.principal ? settings.rateLimitPerKey : settings.rateLimitAnonymous
    const key = counterKey(request)
    apply(request, reply, (key.startsWith(KEY_COUNTER) ? local.keys : local.addresses).count(key, max))
    return undefined
  }

  return {
    check,
    refuseSpentAddress(request, reply, recall) {
      const until = spent.until(clientNetwork(requestAddress(request)), performance.now())
      if (until === undefined) return undefined
      const refuseUntilSpentEnds = () =>
        refuse(request, reply, settings.rateLimitAnonymous, Math.ceil((until - performance.now()) / 1000))
      const recalled = recall()
      if (recalled === 'valid') return undefined
      if (recalled === 'invalid') return refuseUntilSpentEnds()
      return recalled.then((known) => {
        if (known !== 'valid') refuseUntilSpentEnds()
      })
    },
    async limitPublicRoute(request, reply) {
      publicRequests.add(request)
      await check(request, reply)
    },
  }
}
