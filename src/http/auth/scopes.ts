// What a key may do, as the API states it: every operation needs one scope (its route's `config.scope`), and
// the auth hook checks the request's key carries it. Where keys are kept, and how, is the keys feature's.

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
