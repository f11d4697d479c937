// The digest of the key a connection presented last, so that a client sending the same key on one keep-alive
// connection pays for SHA-256 once, not once per request. Only the digest is reused: whether the key is still
// valid is decided on every request as before (static keys, or the stored keys at the current data version).
import { hashApiKey } from './api-key.js'

interface Presented<T> {
  key: string
  digest: string
  derived: T
}

/** Equal strings, in time that depends on their length only (a proxy may carry several clients on one connection). */
function sameKey(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let index = 0; index < a.length; index += 1) difference |= a.charCodeAt(index) ^ b.charCodeAt(index)
  return difference === 0
}

/**
 * Digests by connection (held weakly: gone with the socket), with what `derive` computed from the digest (the
 * static key it matches, which cannot change while the process runs).
 */
export class ConnectionDigests<T> {
  readonly #last = new WeakMap<object, Presented<T>>()
  readonly #derive: (digest: string) => T

  constructor(derive: (digest: string) => T) {
    this.#derive = derive
  }

  of(key: string, connection: object | undefined): { digest: string; derived: T } {
    if (connection !== undefined) {
      const last = this.#last.get(connection)
      if (last !== undefined && sameKey(last.key, key)) return last
    }
    const digest = hashApiKey(key)
    const presented = { key, digest, derived: this.#derive(digest) }
    if (connection !== undefined) this.#last.set(connection, presented)
    return presented
  }
}
