// How a key's scopes are stored. The scopes themselves are the API's (http/auth/scopes.ts): re-exported here for
// the key commands.
import { SCOPES, type Scope } from '../http/auth/scopes.js'

export { isScope, SCOPES, type Scope } from '../http/auth/scopes.js'

/** The stored form: space-separated, in the canonical order of SCOPES, each at most once. */
export function formatScopes(scopes: Iterable<Scope>): string {
  const set = new Set(scopes)
  return SCOPES.filter((scope) => set.has(scope)).join(' ')
}

/** Reads the stored form. A scope this version does not know (written by a newer one) grants nothing here. */
export function parseStoredScopes(text: string): Scope[] {
  const present = new Set(text.split(' '))
  return SCOPES.filter((scope) => present.has(scope))
}
