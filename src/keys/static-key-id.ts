// The identity of a static key (PETSTORE_API_KEYS) in logs, metrics, rate limits and Idempotency-Key records.
// Derived from the key itself, so that it is the same on every instance, whatever the list's order and whichever
// keys are added or removed beside it; through scrypt, so that the id is no shortcut to guessing a short key
// offline: every guess costs what one derivation at start-up costs (about 50 ms).
import { scryptSync } from 'node:crypto'

const SALT = 'petstore static API key id'

// Test processes start many servers with the same keys; a derivation is made once per process.
const derived = new Map<string, string>()

export function staticKeyId(key: string): string {
  let id = derived.get(key)
  if (id === undefined) {
    id = `static-${scryptSync(key, SALT, 8).toString('hex')}`
    derived.set(key, id)
  }
  return id
}
