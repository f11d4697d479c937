// The breaking-change gate: compares the contract with each document clients may hold (the 1.0.0 baseline,
// openapi/baseline-1.0.0.json, and the last released document, the newest snapshot in openapi/releases/) and fails
// on any breaking change not accepted in openapi/accepted-breaking-changes.json. Two judges: api-smart-diff (a
// removed operation, a new required parameter, a narrowed type or range, …) and our own rules where it is blind
// (openapi-rules.ts: type and enum changes, required fields, webhooks, callbacks, components). Both documents are
// compared with every `$ref` resolved, so naming a schema, a response or a header is no change at all.
// Without arguments it checks the committed document and the document the code generates now, so a change made
// in the code is judged even before the committed copy is rewritten.
//
//   tsx scripts/openapi-breaking.ts [REFERENCE.json [CURRENT.json]]
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { apiCompare } from 'api-smart-diff'
import { isMain } from './is-main.js'
import { ruleChanges } from './openapi-rules.js'
import { serverPathChanges } from './openapi-servers.js'
import { generateDocument } from './write-openapi.js'

export const BASELINE = 'openapi/baseline-1.0.0.json'
export const CURRENT = 'openapi/petstore-v1.json'
export const ACCEPTED = 'openapi/accepted-breaking-changes.json'
/** One snapshot per release, named by the document's `info.version`: what clients of that release have. */
export const RELEASES = 'openapi/releases'

type Json = Record<string, unknown>

/**
 * A deliberate, reviewed decision: every breaking change whose path matches `path` (a regular expression over the
 * `/`-joined path) and whose action is `action`; with `to`, only while the value at the path in the current document
 * is one of those listed: the decision was for that value, and a later change at the same place needs one of its own.
 */
interface Acceptance {
  action: 'add' | 'remove' | 'replace' | 'rename'
  path: string
  to?: unknown[]
  /** The reference documents (repository paths) the decision was made against; without it, every one. */
  against?: string[]
  reason: string
}

export interface BreakingChange {
  action: string
  path: string
  /**
   * What the changed place holds in the current document (for a replacement, what it was replaced with). Carried
   * with the change rather than looked up by its path: the diff tool numbers an operation's parameters as the
   * reference document has them, so a parameter added before another would make its path name a different one.
   */
  value: unknown
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

/**
 * The breaking changes from `before` to `after` (the diff tool's, then our rules' new ones) that no acceptance covers.
 */
export function breakingChanges(before: Json, after: Json, accepted: Acceptance[] = []): BreakingChange[] {
  const [resolvedBefore, resolvedAfter] = [dereference(before), dereference(after)]
  // The diff tool rewrites what it is given (it normalises schemas in place): our rules read the documents as they are.
  const { diffs } = apiCompare(structuredClone(resolvedBefore), structuredClone(resolvedAfter))
  const rules = ruleChanges(before, after, resolvedBefore, resolvedAfter)
  // A bound or a type our rules compared is theirs to judge: they compare the range a bound leaves, not each keyword
  // alone, and the values a type takes (every integer is a number), not whether its name changed.
  const found = diffs
    .filter((diff) => diff.type === 'breaking' && !rules.judged.has(diff.path.join('/')))
    .map((diff) => ({
      action: diff.action,
      path: diff.path.join('/'),
      value: diff.after as unknown,
      description: diff.description ?? '',
    }))
  const seen = new Set(found.map((change) => `${change.action} ${change.path}`))
  for (const change of [...rules.changes, ...serverPathChanges(before, after)])
    if (!seen.has(`${change.action} ${change.path}`)) found.push({ ...change, value: change.value })
  // Grouped: an acceptance with alternatives (a|b) must match the whole path with each, not only start or end it.
  const patterns = accepted.map((acceptance) => ({ ...acceptance, regex: new RegExp(`^(?:${acceptance.path})$`) }))
  const covers = (pattern: (typeof patterns)[number], change: BreakingChange) =>
    pattern.action === change.action &&
    pattern.regex.test(change.path) &&
    (pattern.to === undefined || pattern.to.some((value) => isDeepStrictEqual(value, change.value)))
  return found.filter((change) => !patterns.some((pattern) => covers(pattern, change)))
}

/** Release versions in ascending order (1.2.0 before 1.10.0, a pre-release such as 1.1.0-rc.1 before 1.1.0). */
export function byVersion(a: string, b: string): number {
  const split = (version: string) => {
    const [release = '', preRelease] = version.split(/-(.*)/s)
    return { numbers: release.split('.').map((part) => Number.parseInt(part, 10) || 0), preRelease }
  }
  const [x, y] = [split(a), split(b)]
  for (let index = 0; index < Math.max(x.numbers.length, y.numbers.length); index++)
    if ((x.numbers[index] ?? 0) !== (y.numbers[index] ?? 0)) return (x.numbers[index] ?? 0) - (y.numbers[index] ?? 0)
  if (x.preRelease === y.preRelease) return 0
  if (x.preRelease === undefined) return 1
  if (y.preRelease === undefined) return -1
  return x.preRelease.localeCompare(y.preRelease, 'en', { numeric: true })
}

/** The snapshot of the last release: the newest openapi/releases/<version>.json. */
export function lastRelease(directory = RELEASES): string {
  const versions = readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort(byVersion)
  const newest = versions.at(-1)
  if (newest === undefined) throw new Error(`no release snapshot in ${directory}`)
  return join(directory, `${newest}.json`)
}

function readJson(path: string): Json {
  return JSON.parse(readFileSync(resolve(path), 'utf8')) as Json
}

export function readAcceptances(path = ACCEPTED): Acceptance[] {
  return (readJson(path) as { accepted: Acceptance[] }).accepted
}

/**
 * The decisions that hold against `reference`: one made for a false report against one document (a pairing the diff
 * tool makes there only) must not hide a real change of the same place against another.
 */
export function acceptancesFor(reference: string, accepted = readAcceptances()): Acceptance[] {
  return accepted.filter(
    (acceptance) => acceptance.against?.some((path) => resolve(path) === resolve(reference)) ?? true,
  )
}

/** Throws, listing the breaking changes, when `current` breaks `reference`. */
export function judge(reference: string, current: string, document: Json, accepted = readAcceptances()): string {
  const changes = breakingChanges(readJson(reference), document, acceptancesFor(reference, accepted))
  if (changes.length > 0) {
    const listed = changes
      .slice(0, 50)
      .map((change) => `  ${change.action} ${change.path}\n    ${change.description}`)
      .join('\n')
    throw new Error(
      `${current} breaks ${reference} in ${changes.length} ` +
        `place(s):\n${listed}${changes.length > 50 ? '\n  …' : ''}\n` +
        `A breaking change needs a new major version, or a deliberate decision recorded in ${ACCEPTED}.`,
    )
  }
  return `${current}: no breaking change against ${reference}\n`
}

async function main([reference, current]: string[]): Promise<void> {
  if (reference !== undefined && current !== undefined) {
    process.stdout.write(judge(reference, current, readJson(current)))
    return
  }
  const generated = JSON.parse(await generateDocument()) as Json
  for (const against of reference === undefined ? [BASELINE, lastRelease()] : [reference]) {
    process.stdout.write(judge(against, CURRENT, readJson(CURRENT)))
    process.stdout.write(judge(against, 'the document the code generates', generated))
  }
}

if (isMain(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`openapi-breaking: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  })
}
