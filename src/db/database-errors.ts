// A failure to open or reach the database, as the operator reads it: one line naming the path or address at
// fault and the fix, instead of the library's own words (getaddrinfo ENOTFOUND, unable to open database file).
// Each store fails in its own way (SQLite's files, PostgreSQL's connections).
import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import type { DatabaseConfig } from '../config.js'
import { postgresUrlParts } from '../config/postgres-url.js'
import { BUSY_TIMEOUT_MS } from './sqlite.js'

/** The nearest existing part of `directory` when it is a file rather than a directory (no directory can be made). */
function fileInPlaceOfDirectory(directory: string): string | undefined {
  for (let path = directory; ; path = dirname(path)) {
    if (existsSync(path)) return statSync(path).isDirectory() ? undefined : path
    if (dirname(path) === path) return undefined
  }
}

/**
 * A database in this process's memory ends with it: a key created, a schema migrated or a shop imported there
 * would be gone the moment the command says it is done.
 */
export function refuseDatabaseInMemory(command: string, database: DatabaseConfig): void {
  if (database.kind === 'sqlite' && database.path === ':memory:')
    throw new Error(`${command} needs a database that outlives it: set DATABASE_URL to a file or to PostgreSQL`)
}

/** The database a command uses, as the operator would name it; never a password. */
export function describeDatabase(database: DatabaseConfig): string {
  if (database.kind === 'sqlite') return `SQLite database ${database.path}`
  const url = postgresUrlParts(database.url)
  const databaseName = decodeURIComponent(url.pathname.slice(1))
  // As pg reads the URL: `?host=` and `?port=` win over the URL's own, and a host that is a path (percent-encoded
  // in the URL, or in `?host=`) is the directory of a Unix socket.
  const host = url.searchParams.get('host') ?? (decodeURIComponent(url.hostname) || 'localhost')
  const port = url.searchParams.get('port') ?? (url.port || '5432')
  const name = host.startsWith('/')
    ? `PostgreSQL database ${databaseName} on the socket ${host.replace(/\/$/, '')}/.s.PGSQL.${port}`
    : `PostgreSQL database ${host}:${port}/${databaseName}`
  // Shops kept side by side in one database, each in its schema (?options=-c search_path=…): which one.
  const searchPath = /(?:^|\s)(?:-c\s*|--)search_path=(\S+)/.exec(url.searchParams.get('options') ?? '')?.[1]
  return searchPath ? `${name} (search_path ${searchPath})` : name
}

/** The innermost error of a chain of causes: the one that says what actually happened. */
export function rootCause(error: unknown): Error & { code?: unknown; syscall?: unknown; hostname?: unknown } {
  let current = error
  for (let depth = 0; depth < 10; depth++) {
    // pg reports a refused connection to a name with several addresses (localhost) as an AggregateError.
    if (current instanceof AggregateError && current.errors.length > 0) current = current.errors[0]
    else if (current instanceof Error && current.cause instanceof Error) current = current.cause
    else break
  }
  return current instanceof Error ? current : new Error(String(current))
}

function reason(error: Error & { code?: unknown }): string {
  return error.message || (typeof error.code === 'string' ? error.code : error.name)
}

function readableAndWritable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK | constants.W_OK)
    return true
  } catch {
    return false
  }
}

const SQLITE_FILE_CODES = /^SQLITE_(CANTOPEN|READONLY|PERM|IOERR|AUTH)/
const FILE_SYSTEM_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOENT', 'EISDIR'])
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // A Unix socket that is not there (no server, or the wrong directory), or that this user may not use.
  'ENOENT',
  'EACCES',
])
// SQLSTATE classes 08 (connection exception), 28 (authorisation: user or password), 3D000 (no such database)
// and 57P03 (the server is starting up).
const CONNECTION_SQLSTATE = /^(08|28)|^(3D000|57P03)$/
// SQLSTATE 25006: a write in a read-only transaction.
const READ_ONLY_TRANSACTION = '25006'
// The last: sslmode in DATABASE_URL asks for TLS, which the server does not offer.
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'connection timeout',
  'The server does not support SSL connections',
]

// The server's TLS certificate failed verification (sslmode=verify-full, or require, which pg reads as it):
// Node's codes for OpenSSL's verification results, and its own for a certificate naming another host.
const TLS_CERTIFICATE_CODES = new RegExp(
  '^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_[A-Z_]+|CERT_[A-Z_]+|INVALID_CA|' +
    'HOSTNAME_MISMATCH|ERR_TLS_CERT_ALTNAME_INVALID)$',
)

/**
 * A failure to open or reach the database, restated with its path or address and what to do; undefined when
 * the error is something else (a failing migration, a bug), which is then reported as it is.
 */
function explainDatabaseError(error: unknown, database: DatabaseConfig): Error | undefined {
  const cause = rootCause(error)
  const code = typeof cause.code === 'string' ? cause.code : ''
  if (database.kind === 'sqlite') {
    if (code === 'SQLITE_NOTADB') {
      return new Error(
        `${database.path} is not a SQLite database (${reason(cause)}); set DATABASE_URL=file:PATH to the ` +
          `service's database file`,
        { cause: error },
      )
    }
    // SQLite's own words ("database is locked") name neither the file nor who holds it.
    if (code === 'SQLITE_BUSY')
      return new Error(
        `the SQLite database ${database.path} is locked: another process held it for writing for ` +
          `${BUSY_TIMEOUT_MS / 1000} s (an import, a petstore command, or a service writing to it); try again ` +
          'once it is done',
        { cause: error },
      )
    if (!SQLITE_FILE_CODES.test(code) && !FILE_SYSTEM_CODES.has(code)) return undefined
    // DATABASE_URL naming the data directory rather than the file in it: its parent is not what is wrong.
    if (existsSync(database.path) && statSync(database.path).isDirectory())
      return new Error(
        `${database.path} is a directory, not a SQLite database file; set DATABASE_URL=file:PATH to the ` +
          'database file in it (petstore.db by default)',
        { cause: error },
      )
    if (existsSync(database.path) && !readableAndWritable(database.path))
      return new Error(
        `cannot open the SQLite database ${database.path} (${reason(cause)}): the file is not readable and ` +
          `writable by this user (mode ${(statSync(database.path).mode & 0o777).toString(8).padStart(4, '0')}); ` +
          'give the user the service runs as read and write access to it, or set DATABASE_URL=file:PATH to ' +
          'another database',
        { cause: error },
      )
    const blocking = fileInPlaceOfDirectory(dirname(database.path))
    if (blocking !== undefined)
      return new Error(
        `cannot open the SQLite database ${database.path}: ${blocking} is a file, not a directory; set ` +
          'DATABASE_URL=file:PATH to a path whose directories are directories',
        { cause: error },
      )
    const file = basename(database.path)
    return new Error(
      `cannot open the SQLite database ${database.path} (${reason(cause)}): the directory ` +
        `${dirname(database.path)} must exist and be writable by this user, ` +
        `since SQLite also creates ${file}-wal and ${file}-shm there; fix its permissions, or set ` +
        'DATABASE_URL=file:PATH to a writable place',
      { cause: error },
    )
  }
  if (TLS_CERTIFICATE_CODES.test(code)) {
    // Node 24 adds advice of its own after a semicolon (run Node.js with --use-system-ca); the fix said here is
    // the one DATABASE_URL takes, on every Node.js line.
    const verdict = reason(cause).split(';', 1)[0]
    return new Error(
      `cannot connect to ${describeDatabase(database)} (DATABASE_URL): ${verdict} (${code}); the server's ` +
        'TLS certificate is not trusted: name the certificate of the authority that signed it with ' +
        'sslrootcert=PATH in DATABASE_URL, and check that DATABASE_URL names the host it was issued for',
      { cause: error },
    )
  }
  // A standby server, or default_transaction_read_only in DATABASE_URL: connecting and reading work, and the first
  // write fails in PostgreSQL's words, which name neither the database nor what to change.
  if (code === READ_ONLY_TRANSACTION)
    return new Error(
      `the ${describeDatabase(database)} (DATABASE_URL) accepts no writes (${reason(cause)}): DATABASE_URL names ` +
        'a read-only server, such as a standby, or sets default_transaction_read_only; point it at the primary',
      { cause: error },
    )
  const connectionFailure =
    CONNECTION_CODES.has(code) ||
    (/^[0-9A-Z]{5}$/.test(code) && CONNECTION_SQLSTATE.test(code)) ||
    CONNECTION_MESSAGES.some((message) => cause.message.includes(message))
  if (!connectionFailure) return undefined
  return new Error(
    `cannot connect to ${describeDatabase(database)} (DATABASE_URL): ${reason(cause)}; ` +
      'check that PostgreSQL runs there and that DATABASE_URL names the right host, port, database, user and password',
    { cause: error },
  )
}

/** Runs work that opens or first uses the database; a failure to open or reach it becomes an explained error. */
export async function explainingDatabaseErrors<T>(database: DatabaseConfig, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    throw explainDatabaseError(error, database) ?? error
  }
}
