// What the auth hook needs to know of a presented key: the port the keys feature implements (keys/
// authenticator.ts), handed to the app by the composition.
import type { Scope } from './scopes.js'

export interface Principal {
  /**
   * Stable, non-secret identity for logs and metrics: the stored key's id, or `static-<16 hex digits>` for a key
   * of PETSTORE_API_KEYS, derived from it through scrypt (keys/static-key-id.ts): the same on every instance and
   * whatever the list's order. It also owns the key's rate-limit counter and Idempotency-Key records.
   */
  keyId: string
  /** What the key may do. Static keys (PETSTORE_API_KEYS) may do everything. */
  scopes: readonly Scope[]
}

/**
 * What can be said of a presented key without a database query: `valid` (a static key, or one found active
 * lately: it is still looked up before it is believed), `invalid` (not of a stored key's form, or looked up
 * lately and not found), or `unknown`.
 */
export type Recollection = 'valid' | 'invalid' | 'unknown'

/**
 * `connection`, when given, is the socket the key came on: its digest is then computed once per connection and
 * key, while the key's validity is still decided on every call.
 */
export interface Authenticator {
  authenticate(presentedKey: string, connection?: object): Promise<Principal | undefined>
  recall(presentedKey: string, connection?: object): Recollection
  /**
   * For a key `recall` finds `unknown`: whether it is among the stored keys active at a reading of every key's
   * digest that began at `since` or later (the request's arrival, when the key already existed; both instants by
   * performance.now(), so that a step of the wall clock cannot make an older reading pass for a newer). One reading
   * answers every request waiting for it, and readings begin at most every 100 ms per process, so a flood of
   * made-up keys costs at most ten queries a second, while a valid key is still recognised.
   */
  recallAfterReading(presentedKey: string, connection: object | undefined, since: number): Promise<'valid' | 'invalid'>
  /** The principal of a static key (PETSTORE_API_KEYS), known without waiting; undefined for any other key. */
  staticKey(presentedKey: string, connection?: object): Principal | undefined
}
