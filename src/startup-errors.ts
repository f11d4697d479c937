// What the operator reads when a command cannot start: one line naming the variable or path at fault and
// the fix, instead of the library's own words (getaddrinfo ENOTFOUND, unable to open database file). The
// database's failures are db/database-errors.ts's; here, the server's own.
import type { Config } from './config.js'
import { rootCause } from './db/database-errors.js'

/** A failure to listen, restated with the variable to change; undefined for anything else. */
export function explainListenError(error: unknown, config: Pick<Config, 'host' | 'port'>): Error | undefined {
  const cause = rootCause(error)
  const code = typeof cause.code === 'string' ? cause.code : ''
  const { host, port } = config
  const addresses =
    'set HOST to an address of this machine: 127.0.0.1 for local clients only, 0.0.0.0 (or ::) for every interface'
  if (code === 'EADDRINUSE') {
    return new Error(
      `port ${port} on ${host} is already in use (listen EADDRINUSE), by another petstore or another program; ` +
        `stop it, or set PORT to a free port (e.g. PORT=${port === 65535 ? 8080 : port + 1}, if nothing uses it)`,
      { cause: error },
    )
  }
  if (code === 'EACCES' && cause.syscall === 'listen') {
    return new Error(
      `this user may not listen on port ${port} (listen EACCES); set PORT to 1024 or above (e.g. PORT=8080)`,
      { cause: error },
    )
  }
  if (code === 'EADDRNOTAVAIL') {
    return new Error(
      `HOST=${JSON.stringify(host)} is not an address of this machine (listen EADDRNOTAVAIL); ${addresses}`,
      { cause: error },
    )
  }
  if ((code === 'ENOTFOUND' || code === 'EAI_AGAIN') && cause.hostname === host) {
    return new Error(
      `HOST=${JSON.stringify(host)} does not resolve to an address (getaddrinfo ${code}); ${addresses}`,
      { cause: error },
    )
  }
  return undefined
}
