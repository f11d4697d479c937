// One warning per client and deprecated operation (RFC 9745 Deprecation), naming its Sunset (RFC 8594) and its
// successor (Link rel="successor-version"), so that a deprecated call is noticed without flooding the logs.
import { linkTarget } from './headers.js'

export const DEPRECATION_WARNING_CODE = 'PETSTORE_DEPRECATED_OPERATION'

interface WarningProcess {
  emitWarning(message: string, options: { code: string }): void
}

export class DeprecationNotices {
  readonly #warned = new Set<string>()

  /** Warns about the operation if the response marks it deprecated and this client has not warned about it yet. */
  notice(operationId: string, headers: Headers): void {
    if (!headers.has('deprecation') || this.#warned.has(operationId)) return
    this.#warned.add(operationId)
    warn(deprecationMessage(operationId, headers))
  }
}

export function deprecationMessage(operationId: string, headers: Headers): string {
  const sunset = headers.get('sunset')
  const successor = linkTarget(headers, 'successor-version')
  return (
    `The Petstore operation ${operationId} is deprecated` +
    (sunset ? ` and will be removed on ${sunset}` : '') +
    (successor ? `; use ${successor} instead` : '') +
    '.'
  )
}

function warn(message: string): void {
  // Node's warnings can be routed, silenced or turned into errors by the application; browsers have the console.
  const process = (globalThis as { process?: Partial<WarningProcess> }).process
  if (typeof process?.emitWarning === 'function') process.emitWarning(message, { code: DEPRECATION_WARNING_CODE })
  else console.warn(message)
}
