// Who may call the API, and how often: the request's principal and the rate limits (counters in Redis when
// REDIS_URL is set). Returns the guard that the API's routes, and the answers to paths no route matches, put
// before everything else (auth.ts).
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config.js'
import type { Authenticator } from './authenticator.js'
import { decoratePrincipal, type ApiGuard } from './auth.js'
import { registerRateLimit } from './rate-limit.js'

export async function registerAuth(
  app: FastifyInstance,
  config: Config,
  authenticator: Authenticator,
): Promise<ApiGuard> {
  decoratePrincipal(app)
  // ioredis is loaded only when Redis is configured (about 5 MiB of memory otherwise spent for nothing).
  const redis = config.redisUrl
    ? await (await import('../../redis/connect.js')).connectRedis(config.redisUrl, app.log)
    : undefined
  app.addHook('onClose', async () => {
    redis?.disconnect()
  })
  return { authenticator, rateLimiter: await registerRateLimit(app, config, redis) }
}
