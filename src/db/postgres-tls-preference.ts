// sslmode=prefer, libpq's default, means TLS where the server offers it and a plain connection where it does not.
// The driver (pg) asks for TLS and gives up when the server refuses it ("The server does not support SSL
// connections"), so a URL copied from a libpq client could not reach a server without TLS. Before its first
// connection, a process therefore asks the server once; where the server refuses TLS, every connection of the
// process is made without it (sslmode=disable), and where it offers TLS, the URL is used as it is (pg then verifies
// the certificate, as for verify-full). The answer holds until the process restarts: a server that starts or stops
// offering TLS meanwhile (a reload, a failover to another server) is asked again by the next start.
import type pg from 'pg'
import { postgresUrlParts } from '../config/postgres-url.js'

const TLS_REFUSED = 'The server does not support SSL connections'

/**
 * Whether the driver would ask for TLS as sslmode=prefer does: the last sslmode of the URL (the one the driver
 * reads), or, where the URL names none, PGSSLMODE, which the driver reads then.
 */
export function prefersTls(
  url: string,
  // eslint-disable-next-line no-restricted-properties -- the driver's own variable, not the service's configuration
  environment: NodeJS.ProcessEnv = process.env,
): boolean {
  const named = postgresUrlParts(url).searchParams.getAll('sslmode').at(-1)
  return (named ?? environment.PGSSLMODE) === 'prefer'
}

/**
 * The same URL asking for no TLS. The driver reads the last of a repeated parameter, so an sslmode appended to the
 * query wins (before any fragment, which is not part of it), and every other parameter keeps its meaning.
 */
export function withoutTls(url: string): string {
  const fragment = url.indexOf('#')
  const [beforeFragment, fromFragment] = fragment < 0 ? [url, ''] : [url.slice(0, fragment), url.slice(fragment)]
  const separator = beforeFragment.includes('?') ? '&' : '?'
  return `${beforeFragment}${separator}sslmode=disable${fromFragment}`
}

/**
 * The URL to connect with: `url` itself unless the driver would read it as sslmode=prefer and the server refuses
 * TLS. Any other failure of the question (the server is down, a wrong password) leaves the URL as it is: the
 * connection that follows fails the same way and reports it. `newClient` must bound the wait for the server.
 */
export async function connectionUrl(url: string, newClient: (url: string) => pg.Client): Promise<string> {
  if (!prefersTls(url)) return url
  const probe = newClient(url)
  probe.on('error', () => {})
  try {
    await probe.connect()
    await probe.end()
    return url
  } catch (error) {
    await probe.end().catch(() => {})
    if (!(error instanceof Error && error.message === TLS_REFUSED)) return url
    // Said once per process on standard error, beside the driver's own warning about sslmode: the connections of
    // this process are not encrypted, and prefer cannot tell a server without TLS from someone on the way between.
    process.emitWarning(
      'The PostgreSQL server offers no TLS: connecting without it, as sslmode=prefer allows. Set ' +
        'sslmode=verify-full in DATABASE_URL to refuse a connection that is not encrypted.',
      { code: 'PETSTORE_POSTGRES_WITHOUT_TLS' },
    )
    return withoutTls(url)
  }
}
