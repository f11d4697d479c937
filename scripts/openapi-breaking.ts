// The breaking-change gate: compares the committed document (openapi/petstore-v1.json) with the 1.0.0 baseline
// (openapi/baseline-1.0.0.json) using api-smart-diff, and fails on any change it classifies as breaking (a removed
// operation, a new required request field or parameter, a narrowed type or range, …) that is not accepted in
// openapi/accepted-breaking-changes.json. Both documents are compared with every `$ref` resolved, so naming a
// schema, a response or a header is no change at all.
//
//   tsx scripts/openapi-breaking.ts [BASELINE.json [CURRENT.json]]
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { apiCompare } from 'api-smart-diff'
import { isMain } from './is-main.js'

export const BASELINE = 'openapi/baseline-1.0.0.json'
export const CURRENT = 'openapi/petstore-v1.json'
export const ACCEPTED = 'openapi/accepted-breaking-changes.json'

type Json = Record<string, unknown>

/** A deliberate, reviewed decision: every breaking change whose path matches `path` (a regular expression over the `/`-joined path) and whose action is `action`. */
interface Acceptance {
  action: 'add' | 'remove' | 'replace' | 'rename'
  path: string
  reason: string
}

export interface BreakingChange {
  action: string
  path: string
  description: string
}

/** The document with every local `$ref` replaced by what it points at (the documents have no cycles). */
export function dereference(document: Json): Json {
  const resolvePointer = (pointer: string): unknown =>
    pointer
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, part) => (node as Json)[part], document)
  const walk = (node: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error('reference cycle in the OpenAPI document')
    if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1))
    if (node === null || typeof node !== 'object') return node
    const { $ref, ...rest } = node as Json
    if (typeof $ref === 'string') {
      if (!$ref.startsWith('#/')) throw new Error(`only local references are supported: ${$ref}`)
      return walk({ ...(resolvePointer($ref) as Json), ...rest }, depth + 1)
    }
    return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, walk(value, depth + 1)]))
  }
  const resolved = walk(document, 0) as Json
  // What the paths use is now inline; the lists themselves are no part of the interface.
  const components = Object.fromEntries(
    Object.entries((resolved.components ?? {}) as Json).filter(
      ([kind]) => !['schemas', 'responses', 'headers'].includes(kind),
    ),
  )
  return { ...resolved, components }
}

/** The breaking changes from `before` to `after` that no acceptance covers. */
export function breakingChanges(before: Json, after: Json, accepted: Acceptance[] = []): BreakingChange[] {
  const { diffs } = apiCompare(dereference(before), dereference(after))
  const patterns = accepted.map((acceptance) => ({ ...acceptance, regex: new RegExp(`^${acceptance.path}$`) }))
  return diffs
    .filter((diff) => diff.type === 'breaking')
    .map((diff) => ({ action: diff.action, path: diff.path.join('/'), description: diff.description ?? '' }))
    .filter(
      (change) => !patterns.some((pattern) => pattern.action === change.action && pattern.regex.test(change.path)),
    )
}

function readJson(path: string): Json {
  return JSON.parse(readFileSync(resolve(path), 'utf8')) as Json
}

export function readAcceptances(path = ACCEPTED): Acceptance[] {
  return (readJson(path) as { accepted: Acceptance[] }).accepted
}

function main([baseline = BASELINE, current = CURRENT]: string[]): void {
  const changes = breakingChanges(readJson(baseline), readJson(current), readAcceptances())
  if (changes.length > 0) {
    const listed = changes
      .slice(0, 50)
      .map((change) => `  ${change.action} ${change.path}\n    ${change.description}`)
      .join('\n')
    throw new Error(
      `${current} breaks ${baseline} in ${changes.length} place(s):\n${listed}${changes.length > 50 ? '\n  …' : ''}\n` +
        `A breaking change needs a new major version, or a deliberate decision recorded in ${ACCEPTED}.`,
    )
  }
  process.stdout.write(`${current}: no breaking change against ${baseline}\n`)
}

if (isMain(import.meta.url)) {
  try {
    main(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(`openapi-breaking: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  }
}
