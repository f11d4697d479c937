// A PostgreSQL URL read as the driver (pg) reads it. libpq's form for a Unix socket with a named role,
// `postgres://petstore@/shop?host=/var/run/postgresql`, has a user but no host in its authority, which the URL
// standard's parser refuses; pg reads such a URL again with a stand-in host and takes the host from `?host=`. The
// configuration and the messages naming the database read it the same way, so that a URL the driver connects
// with is neither refused nor named wrongly.

const STAND_IN_HOST = 'petstore-stand-in-host'

/** The parts of a PostgreSQL URL the service reads; `hostname` is empty when the authority names none. */
export interface PostgresUrlParts {
  readonly hostname: string
  readonly port: string
  readonly pathname: string
  readonly username: string
  readonly password: string
  readonly searchParams: URLSearchParams
}

/** Throws a TypeError, as `new URL` does, when pg could not read `value` either. */
export function postgresUrlParts(value: string): PostgresUrlParts {
  if (URL.canParse(value)) return new URL(value)
  const url = new URL(value.replace('@/', `@${STAND_IN_HOST}/`))
  return {
    hostname: '',
    port: url.port,
    pathname: url.pathname,
    username: url.username,
    password: url.password,
    searchParams: url.searchParams,
  }
}
