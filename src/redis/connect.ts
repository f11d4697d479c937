// The Redis connection for state shared by instances (rate-limit counters). Redis is an optimisation of
// correctness across instances, never a dependency of availability: every command fails fast while Redis is
// unreachable, so callers can fall back at once instead of queueing requests behind a dead connection.
import { Redis } from 'ioredis'
import type { FastifyBaseLogger } from 'fastify'

/** Tuned for loopback or a LAN: a healthy Redis answers in well under a millisecond. */
const REDIS_TIMEOUTS = {
  connectMs: 1_000,
  commandMs: 250,
  /** Reconnection attempts back off to at most this interval, so recovery is noticed within about a second. */
  maxReconnectDelayMs: 1_000,
}

/**
 * Connects, and waits for the connection (at most the connect time-out) so that the first requests are
 * counted too. A Redis that refuses or does not answer does not stop the start: the service fails open.
 */
export async function connectRedis(url: string, log: FastifyBaseLogger): Promise<Redis> {
  // A connection whose SELECT of REDIS_URL's database was refused (an index beyond the server's `databases`, or a
  // cluster) still becomes ready, and ioredis then sends every command to database 0: counters shared with whatever
  // else counts there under the same names. Such a connection is closed as soon as it is ready and opened again
  // later, like one that failed: meanwhile the service fails open, and it counts again once the database is there.
  let selectRefused = false
  // Refusals in a row: ioredis restarts its attempts at every ready, so the back-off of the reconnections is kept here.
  let refusedInARow = 0
  const redis = new Redis(url, {
    // While disconnected, commands are refused at once rather than queued until Redis comes back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: REDIS_TIMEOUTS.connectMs,
    // A connection that is open but silent (a network black hole) must not hold requests either.
    commandTimeout: REDIS_TIMEOUTS.commandMs,
    retryStrategy: (attempt) => Math.min((attempt + refusedInARow) * 100, REDIS_TIMEOUTS.maxReconnectDelayMs),
  })
  // Emitted before the reply to the connection's SELECT can have arrived.
  redis.on('connect', () => (selectRefused = false))
  // Logged once per outage and kind of failure, not once per reconnection attempt: a Redis that was down at start
  // and comes back refusing the credentials (WRONGPASS) is named too, not hidden behind the first ECONNREFUSED.
  // Without an 'error' listener ioredis would print every failed attempt to the console.
  let reported: string | undefined
  redis.on('error', (error: Error & { code?: string; command?: { name?: string } }) => {
    const refusesDatabase = error.command?.name === 'select'
    if (refusesDatabase) selectRefused = true
    const kind = error.code ?? error.message
    if (kind === reported) return
    log.warn(
      { err: withoutCommand(error) },
      refusesDatabase
        ? 'redis refuses the database REDIS_URL names; requests are admitted without rate limits until it accepts it'
        : reported === undefined
          ? 'redis is unreachable; retrying in the background'
          : 'redis still fails, now otherwise; retrying in the background',
    )
    reported = kind
  })
  redis.on('ready', () => {
    if (selectRefused) {
      refusedInARow++
      redis.disconnect(true)
      return
    }
    refusedInARow = 0
    if (reported !== undefined) log.info('redis is reachable again')
    reported = undefined
  })
  await new Promise<void>((resolve) => {
    const settle = () => {
      clearTimeout(timer)
      redis.off('ready', settle).off('error', settle)
      resolve()
    }
    const timer = setTimeout(settle, REDIS_TIMEOUTS.connectMs)
    redis.once('ready', settle).once('error', settle)
  })
  return redis
}

/**
 * The error as logged: a reply error carries the command it answered, and at connection time that is AUTH with the
 * user name and password from REDIS_URL in clear.
 */
function withoutCommand(error: Error & { code?: string }): { type: string; message: string; code?: string } {
  return { type: error.name, message: error.message, ...(error.code === undefined ? {} : { code: error.code }) }
}
