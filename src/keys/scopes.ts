// What a key may do. Every operation needs one scope; a key carries any subset of them (all by default).

export const SCOPES = [
  'pets:read',
  'pets:write',
  'orders:read',
  'orders:write',
  'events:read',
  'webhooks:manage',
] as const
export type Scope = (typeof SCOPES)[number]

export function isScope(text: string): text is Scope {
  return (SCOPES as readonly string[]).includes(text)
}

/** The stored form: space-separated, in the canonical order above, each at most once. */
export function formatScopes(scopes: Iterable<Scope>): string {
  const set = new Set(scopes)
  return SCOPES.filter((scope) => set.has(scope)).join(' ')
}

/** Reads the stored form. A scope this version does not know (written by a newer one) grants nothing here. */
export function parseStoredScopes(text: string): Scope[] {
  const present = new Set(text.split(' '))
  return SCOPES.filter((scope) => present.has(scope))
}
