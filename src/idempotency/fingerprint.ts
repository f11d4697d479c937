// What makes two requests "the same request" for an Idempotency-Key: the operation (method and route), the
// resource it acts on (path parameters), the body and the conditions (If-Match, If-None-Match), compared after
// validation, so that the spelling of the JSON (key order, white space, a default written out or left to the
// schema) does not matter.
import { createHash } from 'node:crypto'

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null'
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`
}

export interface RequestIdentity {
  method: string
  /** The route template, e.g. `/v1/store/orders/:orderId/complete`. */
  route: string
  params: unknown
  body: unknown
  /** The If-Match header as sent: the same change on another condition is another request. */
  ifMatch?: string | undefined
  /** The If-None-Match header as sent (`*` on a put: create only), for the same reason. */
  ifNoneMatch?: string | undefined
}

/**
 * SHA-256 (hex) of the request's identity. A request without If-None-Match has the fingerprint earlier versions
 * gave it, so their stored keys still match its retries. One with If-None-Match (a conditional category put) does
 * not: its retry across an upgrade, or between instances of two versions, is answered 422 and needs a new key.
 */
export function requestFingerprint({ method, route, params, body, ifMatch, ifNoneMatch }: RequestIdentity): string {
  const identity = [
    method.toUpperCase(),
    route,
    params ?? {},
    body ?? null,
    ...(ifMatch === undefined ? [] : [ifMatch]),
    // An object, where If-Match is a string: one header is never taken for the other.
    ...(ifNoneMatch === undefined ? [] : [{ ifNoneMatch }]),
  ]
  return createHash('sha256').update(canonicalJson(identity)).digest('hex')
}
