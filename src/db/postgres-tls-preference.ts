// sslmode=prefer, libpq's default, means TLS where the server offers it and a plain connection where it does not.
// The driver (pg) asks for TLS and gives up when the server refuses it ("The server does not support SSL
// connections"), so a URL copied from a libpq client could not reach a server without TLS. Before the first
// connection the service therefore asks the server once; where it refuses TLS, every connection is made without it
// (sslmode=disable), and where it offers TLS, the URL is used as it is (pg then verifies the certificate, as for
// verify-full). A server does not drop TLS while it runs, so one answer holds for the process.
import type pg from 'pg'
import { postgresUrlParts } from '../config/postgres-url.js'

const TLS_REFUSED = 'The server does not support SSL connections'

/** Whether DATABASE_URL asks for TLS only where the server offers it. */
export function prefersTls(url: string): boolean {
  return postgresUrlParts(url).searchParams.get('sslmode') === 'prefer'
}

/**
 * The same URL asking for no TLS. The driver reads the last of a repeated parameter, so the sslmode appended to a
 * URL that has a query already (it names sslmode) wins, and every other parameter keeps its meaning.
 */
export function withoutTls(url: string): string {
  return `${url}&sslmode=disable`
}

/**
 * The URL to connect with: `url` itself unless it says sslmode=prefer and the server refuses TLS. Any other failure
 * of the question (the server is down, a wrong password) leaves the URL as it is: the connection that follows fails
 * the same way and reports it.
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
    return error instanceof Error && error.message === TLS_REFUSED ? withoutTls(url) : url
  }
}
