// The servers' base path is part of the contract: a client calls the base path followed by an operation's path, so
// moving it (…/v1 to …/v2) moves every operation. Hosts are the deployment's (production, staging, the instance the
// document was fetched from) and may change; the diff tool judges neither. Every server counts, the instance
// included: a document without configured servers (the committed copy) names only the instance, and its path is
// the one a client calls.
import type { RuleChange } from './openapi-rules.js'

type Json = Record<string, unknown>

/** The base paths of the servers, without a final slash. */
function basePaths(document: Json): Set<string> {
  const servers = Array.isArray(document.servers) ? (document.servers as Json[]) : [{ url: '/' }]
  return new Set(
    servers
      .filter((server) => typeof server.url === 'string')
      .map((server) => new URL(server.url as string, 'http://server.invalid').pathname.replace(/\/+$/, '')),
  )
}

/** A base path of `before`'s servers that none of `after`'s has: each is a breaking change. */
export function serverPathChanges(before: Json, after: Json): RuleChange[] {
  const kept = basePaths(after)
  return [...basePaths(before)]
    .filter((path) => !kept.has(path))
    .map((path) => ({
      action: 'remove',
      path: `servers/${path || '/'}`,
      description: `no server keeps the base path ${path || '/'}: every operation under it moved`,
    }))
}
