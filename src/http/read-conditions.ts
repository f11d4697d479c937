// The conditions a read of a resource with an ETag evaluates (RFC 9110 section 13.2.2, in its order): If-Match
// first, answered 412 when it fails, then If-None-Match, answered 304. A client reads with If-Match to be sure it
// gets the version it holds the tag of, and nothing newer. If-Match is read as the changes read it
// (ifMatchCondition: strong comparison, `*` holds while the resource exists).
import { conditionHolds } from '../domain/version-condition.js'
import { ifMatchRefusal } from './errors/errors.js'
import { entityTag, ifMatchCondition, noneMatchFails } from './entity-tag.js'

/**
 * 304 when the read of resource `id` at `version` is answered Not Modified, 200 for the resource; throws the 412,
 * with the current ETag, when If-Match fails.
 */
export function readConditionStatus(
  headers: { 'if-match'?: string; 'if-none-match'?: string },
  resource: 'pet' | 'category',
  id: number,
  version: number,
): 200 | 304 {
  const tag = entityTag(id, version)
  const condition = ifMatchCondition(headers['if-match'], id)
  if (condition !== undefined && !conditionHolds(condition, version))
    throw ifMatchRefusal(resource, id, tag, headers['if-match'], 'read')
  return noneMatchFails(headers['if-none-match'], tag) ? 304 : 200
}
