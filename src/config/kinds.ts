// The kinds of value a variable may hold. Each kind knows what it accepts (the configuration page says it), its
// default, and how to read a set value; an empty value counts as unset.
import { isIP } from 'node:net'
import { resolve } from 'node:path'
import { ConfigError, withoutPassword } from './config-error.js'
import { postgresUrlParts } from './postgres-url.js'

export interface Kind<T> {
  /** What a value may be, as the configuration page says it. */
  readonly accepts: string
  /** The default as help and the page show it; absent when unset means none. */
  readonly defaultText?: string
  /** The value when the variable is unset or empty. */
  unset(): T
  /** Reads a non-empty value, or throws a ConfigError naming `name`. */
  parse(value: string, name: string): T
}

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string }

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export function host(fallback: string): Kind<string> {
  const accepts = 'a host name or IP address'
  return {
    accepts,
    defaultText: fallback,
    unset: () => fallback,
    parse(value, name) {
      if (!/^[A-Za-z0-9.:\-[\]]+$/.test(value)) throw new ConfigError(name, accepts, value)
      // Digits and dots are never looked up as a name: 256.1.1.1 would otherwise end as getaddrinfo ENOTFOUND.
      if (/^[0-9.]+$/.test(value) && isIP(value) !== 4) {
        const ipv4 = 'as an IPv4 address it needs four numbers from 0 to 255 (127.0.0.1, 0.0.0.0 for every interface)'
        throw new ConfigError(name, `${accepts}; ${ipv4}`, value)
      }
      // A colon or a bracket belongs only in an IPv6 address: "0.0.0.0:8080" or "[::1]" would otherwise pass here
      // and end as getaddrinfo ENOTFOUND when serve listens, after every other command accepted them.
      if (/[:[\]]/.test(value) && isIP(value) !== 6) {
        const bare = value.replace(/^\[(.*)\]$/, '$1')
        const hint =
          isIP(bare) === 6
            ? `an IPv6 address is written without brackets (${bare})`
            : 'without a port (the port is PORT): 0.0.0.0 for every interface, or :: for IPv6'
        throw new ConfigError(name, `${accepts}; ${hint}`, value)
      }
      return value
    },
  }
}

export function integer(fallback: number, minimum: number, maximum: number): Kind<number> {
  const accepts = `an integer from ${minimum} to ${maximum}`
  return {
    accepts,
    defaultText: String(fallback),
    unset: () => fallback,
    parse(value, name) {
      const parsed = /^(0|[1-9][0-9]{0,15})$/.test(value) ? Number(value) : NaN
      if (!(parsed >= minimum && parsed <= maximum)) throw new ConfigError(name, accepts, value)
      return parsed
    },
  }
}

export function boolean(fallback: boolean): Kind<boolean> {
  const accepts = 'true or false (also 1 or 0)'
  return {
    accepts,
    defaultText: String(fallback),
    unset: () => fallback,
    parse(value, name) {
      if (value === 'true' || value === '1') return true
      if (value === 'false' || value === '0') return false
      throw new ConfigError(name, accepts, value)
    },
  }
}

/** One of a fixed list of words. */
export function oneOf<const T extends string>(words: readonly T[], fallback: T): Kind<T> {
  const accepts = `one of ${words.join(', ')}`
  const isWord = (value: string): value is T => (words as readonly string[]).includes(value)
  return {
    accepts,
    defaultText: fallback,
    unset: () => fallback,
    parse(value, name) {
      if (!isWord(value)) throw new ConfigError(name, accepts, value)
      return value
    },
  }
}

/** Text matching `pattern`, which `accepts` describes. */
export function text(pattern: RegExp, accepts: string, fallback: string): Kind<string> {
  return {
    accepts,
    defaultText: fallback,
    unset: () => fallback,
    parse(value, name) {
      if (!pattern.test(value)) throw new ConfigError(name, accepts, value)
      return value
    },
  }
}

/** Where the data is: SQLite (a file, created on first use) or PostgreSQL. */
const DATABASE_URLS = 'file:PATH or sqlite:PATH (SQLite), or postgres://… / postgresql://… (PostgreSQL)'

/**
 * What a client library reads of a URL, checked here so that a bad one is refused naming its variable. `read`
 * parses it as that library does (PostgreSQL's driver takes a user without a host, see postgres-url.ts).
 */
function wellFormedUrl(
  value: string,
  read: (value: string) => Pick<URL, 'username' | 'password' | 'pathname'> = (text) => new URL(text),
): boolean {
  try {
    const url = read(value)
    for (const part of [url.username, url.password, url.pathname]) decodeURIComponent(part)
    return true
  } catch {
    return false
  }
}

/**
 * A SQLite path as the operator would expect another program to read it, which this one would read otherwise: taken
 * as written, `file:pets.db?mode=ro` (SQLite's URI parameters) and `file:~/pets.db` (no shell expands it) name a
 * file nobody meant, and `migrate`, or `serve` with its migrations on start, would quietly create an empty shop there.
 */
function refuseUnreadSqlitePath(path: string, name: string, value: string): void {
  if (/[?#]/.test(path))
    throw new ConfigError(
      name,
      'file:PATH or sqlite:PATH takes a plain path; SQLite URI parameters (?mode=ro, ?cache=shared) are not read, ' +
        'and a ? or # would become part of the file name',
      value,
    )
  // resolve() drops a trailing slash, and a last . or ..: `file:data/` or `file:data/.` would become a database
  // file named data. (`file:.` and `file:..` name directories that exist, which the command says when it opens them.)
  if (/\/\.{0,2}$/.test(path))
    throw new ConfigError(
      name,
      'file:PATH or sqlite:PATH names the database file; a path ending in /, /. or /.. names a directory',
      value,
    )
  if (/^~(?:\/|$)/.test(path))
    throw new ConfigError(
      name,
      'file:PATH or sqlite:PATH takes a path from / or from the current directory; ~ is not expanded to the home ' +
        'directory',
      value,
    )
}

export const database: Kind<DatabaseConfig> = {
  accepts: DATABASE_URLS,
  defaultText: 'SQLite in data/petstore.db under the current directory',
  unset: () => ({ kind: 'sqlite', path: resolve('data/petstore.db') }),
  parse(value, name) {
    const sqlite = /^(?:file|sqlite):(.+)$/.exec(value)
    // `file:///abs/path` is the URL spelling of `/abs/path`, but `file://name/…` names a host: refusing it beats
    // guessing (read as a path, `sqlite://data/x.db` would quietly become `/data/x.db`).
    if (sqlite?.[1] && !/^\/\/[^/]/.test(sqlite[1])) {
      const path = sqlite[1].replace(/^\/\/(?=\/)/, '')
      refuseUnreadSqlitePath(path, name, value)
      return { kind: 'sqlite', path: path === ':memory:' ? path : resolve(path) }
    }
    if (/^postgres(?:ql)?:\/\/./.test(value)) {
      if (!wellFormedUrl(value, postgresUrlParts))
        throw new ConfigError(
          name,
          'a well-formed postgres:// URL: a port from 1 to 65535, and % only as in %XX',
          withoutPassword(value),
        )
      return { kind: 'postgres', url: value }
    }
    throw new ConfigError(name, DATABASE_URLS, withoutPassword(value))
  },
}

/** A URL whose scheme matches `scheme`; unset means none. Its password never reaches a message. */
export function url(scheme: RegExp, accepts: string): Kind<string | undefined> {
  return {
    accepts,
    unset: () => undefined,
    parse(value, name) {
      // Read by the client only when it connects: a URL it could not read would stop `serve` without naming it.
      if (!scheme.test(value) || !wellFormedUrl(value)) throw new ConfigError(name, accepts, withoutPassword(value))
      return value
    },
  }
}

/** A parsed URL that `fits`, normalised by `normalise`; unset means none, or what `defaultText` says. */
export function checkedUrl(
  accepts: string,
  fits: (url: URL) => boolean,
  normalise: (url: URL) => string,
  defaultText?: string,
): Kind<string | undefined> {
  return {
    accepts,
    ...(defaultText === undefined ? {} : { defaultText }),
    unset: () => undefined,
    parse(value, name) {
      const parsed = URL.canParse(value) ? new URL(value) : undefined
      const plain = parsed && !parsed.search && !parsed.hash && !parsed.username && !parsed.password
      if (!parsed || !plain || !fits(parsed)) throw new ConfigError(name, accepts, withoutPassword(value))
      return normalise(parsed)
    },
  }
}
