// Request quotas (@fastify/rate-limit): per API key, and per client address for requests without a valid key.
// Counters live in Redis when REDIS_URL is set, so that every instance draws on one quota, and in memory
// otherwise. The headers follow draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` and `RateLimit`.
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import type { Config } from '../config.js'
import { ApiError } from './errors.js'

export type RateLimitSettings = Pick<Config, 'rateLimitPerKey' | 'rateLimitAnonymous' | 'rateLimitWindowSeconds' | 'rateLimitNamespace'>

export interface RateLimiter {
  /**
   * Counts the request against its key (request.principal) or, without one, its client address; sets the
   * RateLimit headers; throws `rate_limited` once the quota of the window is used up.
   */
  check(request: FastifyRequest, reply: FastifyReply): Promise<void>
}

/** After the shared store fails, requests are admitted without asking it for this long, then it is tried again. */
export const FAIL_OPEN_MS = 1_000

const POLICY = '"default"'

// Fail-open: rate limiting protects the service, it must never be what takes it down. While Redis cannot be
// reached, requests are answered without counting (and without RateLimit headers, which would be guesses);
// the outage is logged once, and counting resumes by itself when Redis answers again.
export async function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings, redis: Redis | undefined): Promise<RateLimiter> {
  const window = settings.rateLimitWindowSeconds
  await app.register(rateLimit, {
    // Not on every route: the API scope runs the check itself, between authentication and refusal.
    global: false,
    ...(redis ? { redis, nameSpace: `${settings.rateLimitNamespace}:` } : { cache: 10_000 }),
    timeWindow: window * 1000,
    max: (request) => (request.principal ? settings.rateLimitPerKey : settings.rateLimitAnonymous),
    keyGenerator: (request) => (request.principal ? `key:${request.principal.keyId}` : `ip:${request.ip}`),
    // Store errors reach check(), which fails open and logs.
    skipOnError: false,
  })
  // The limiter without the plugin's own reply handling: it answers with the counts, so that the headers
  // and the 429 take this service's form (the Error body, the IETF draft headers).
  const count = app.createRateLimit()
  let failingUntil = 0
  let failing = false

  return {
    async check(request, reply) {
      if (Date.now() < failingUntil) return
      let result: Awaited<ReturnType<typeof count>>
      try {
        result = await count(request)
      } catch (error) {
        failingUntil = Date.now() + FAIL_OPEN_MS
        if (!failing) app.log.warn({ err: error }, 'the rate-limit store failed; requests are admitted without rate limits until it answers again')
        failing = true
        return
      }
      if (failing) app.log.info('the rate-limit store answers again; rate limits apply')
      failing = false
      if (result.isAllowed) return
      const reset = Math.max(0, result.ttlInSeconds)
      reply.header('ratelimit-policy', `${POLICY};q=${result.max};w=${window}`)
      reply.header('ratelimit', `${POLICY};r=${result.remaining};t=${reset}`)
      if (!result.isExceeded) return
      const retryAfter = Math.max(1, reset)
      const message = request.principal
        ? `This API key has used its ${result.max} requests per ${window} s; retry in ${retryAfter} s.`
        : `Too many requests without a valid API key from this address (${result.max} per ${window} s); retry in ${retryAfter} s.`
      throw new ApiError('rate_limited', message, { headers: { 'retry-after': String(retryAfter) } })
    },
  }
}
