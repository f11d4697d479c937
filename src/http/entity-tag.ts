// Entity tags (RFC 9110 section 8.8.3) and the conditional request headers that carry them (section 13.1.1 If-Match,
// section 13.1.2 If-None-Match). A resource's tag is `"<id>.<version>"`: strong, and changed by every change of the
// resource, because the version is. The header values reach this module already checked against
// ENTITY_TAG_LIST_PATTERN by the route's schema, so a malformed one has been answered 400 before.
import type { VersionCondition } from '../domain/version-condition.js'

// etagc = %x21 / %x23-7E / obs-text (section 8.8.3); a list may not mix `*` with tags. Empty list elements
// (`"1.2",`, `, "1.2"`, `"1.2",,"1.3"`) are read as nothing, as section 5.6.1 requires of a recipient; a list of
// only empty elements names no tag and is refused.
const ENTITY_TAG = '(?:W/)?"[\\x21\\x23-\\x7E\\x80-\\xFF]*"'
export const ENTITY_TAG_LIST_PATTERN = `^(?:\\*|(?:,[ \\t]*)*${ENTITY_TAG}(?:[ \\t]*,(?:[ \\t]*${ENTITY_TAG})?)*)$`

const LISTED_TAG = /(W\/)?"([^"]*)"/g
const OUR_TAG = /^([1-9][0-9]*)\.([1-9][0-9]*)$/

/** The strong entity tag of a resource at a version, as sent in ETag. */
export function entityTag(id: number, version: number): string {
  return `"${id}.${version}"`
}

interface ListedTag {
  weak: boolean
  opaque: string
}

function listedTags(header: string): ListedTag[] {
  return [...header.matchAll(LISTED_TAG)].map(([, weak, opaque = '']) => ({ weak: weak !== undefined, opaque }))
}

/**
 * The condition an If-Match value puts on the version of resource `id`, or undefined without the header.
 * Strong comparison: a weak tag, or a tag of another resource or not of our making, names no version (a list
 * of only those can never hold, and the request is answered 412).
 */
export function ifMatchCondition(header: string | undefined, id: number): VersionCondition | undefined {
  if (header === undefined) return undefined
  if (header === '*') return { anyVersion: true }
  const versions: number[] = []
  for (const tag of listedTags(header)) {
    const [, tagId, version] = OUR_TAG.exec(tag.opaque) ?? []
    if (!tag.weak && tagId === String(id) && version !== undefined) versions.push(Number(version))
  }
  return { versions }
}

/**
 * Whether an If-Match value names the current tag only as a weak one (`W/"1.2"`): strong comparison makes it
 * fail, and the client is better told that than that the resource changed.
 */
export function namesOnlyWeakly(header: string | undefined, currentTag: string): boolean {
  if (header === undefined || header === '*') return false
  const current = currentTag.slice(1, -1)
  const naming = listedTags(header).filter((tag) => tag.opaque === current)
  return naming.length > 0 && naming.every((tag) => tag.weak)
}

/**
 * Whether an If-None-Match value names the current tag (weak comparison, section 13.1.2), or is `*`: then GET
 * answers 304.
 */
export function noneMatchFails(header: string | undefined, currentTag: string): boolean {
  if (header === undefined) return false
  if (header === '*') return true
  const current = currentTag.slice(1, -1)
  return listedTags(header).some((tag) => tag.opaque === current)
}
