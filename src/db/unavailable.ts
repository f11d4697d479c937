// Which database errors mean "the database cannot serve now" (answered 503, retry later), as opposed to
// a bug (500). Connection failures, server shutdowns, time-outs and lock contention are transient.

const TRANSIENT_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
// SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P (operator intervention:
// shutdown, cannot connect now), 57014 (statement cancelled by statement_timeout), 40001/40P01
// (serialization failure, deadlock: the transaction was rolled back and may simply be retried), 55000 (at
// connection: the database does not accept connections now, ALTER DATABASE … ALLOW_CONNECTIONS false; the
// service's statements raise it in no other way), 55P03 (a lock not available in time) and 25006 (a write in a
// read-only transaction: during a failover a connection reaches a standby, or the old primary once demoted, until
// the new primary takes the address).
const TRANSIENT_SQLSTATE = /^(08|53|57P)|^(57014|40001|40P01|55000|55P03|25006)$/
// SQLITE_FULL: the disk is full (or the page limit reached), as PostgreSQL's class 53 above; the write was
// rolled back, and succeeds again once there is room.
const TRANSIENT_SQLITE_CODES = new Set([
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_RECOVERY',
  'SQLITE_LOCKED',
  'SQLITE_FULL',
])
const TRANSIENT_MESSAGES = [
  'timeout exceeded when trying to connect',
  // pg's own Client (the read pipeline's connections) when connectionTimeoutMillis passes.
  'timeout expired',
  'Connection terminated',
  'Query read timeout',
  'Client has encountered a connection error',
  'driver has already been destroyed',
]

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  // Node's HTTP server fails a request with ECONNRESET "aborted" when its client hangs up mid-request: a reset
  // of the client's connection, not of the database's (whose resets say "read ECONNRESET" or name the server).
  if (code === 'ECONNRESET' && error.message === 'aborted') return false
  if (
    typeof code === 'string' &&
    (TRANSIENT_SYSTEM_CODES.has(code) ||
      TRANSIENT_SQLITE_CODES.has(code) ||
      (/^[0-9A-Z]{5}$/.test(code) && TRANSIENT_SQLSTATE.test(code)))
  ) {
    return true
  }
  if (TRANSIENT_MESSAGES.some((message) => error.message.includes(message))) return true
  return error.cause !== undefined && error.cause !== error && isDatabaseUnavailable(error.cause)
}
