// The category operations' descriptions in the OpenAPI document: prose, kept out of the route definitions.
import { BETA_NOTE } from '../http/openapi/stability.js'

const RETRY = 'Safe to retry with an `Idempotency-Key`.'
const NAMES = 'Names are unique ignoring case: a name another category has is 409 `conflict`.'
const IF_MATCH =
  'With `If-Match` (the `ETag` of an earlier response), only if nobody changed the category since; ' +
  'otherwise 412 `precondition_failed`, and nothing changes.'

export const DESCRIPTIONS = {
  listCategories:
    `${BETA_NOTE}\n\nCategories in ascending id order. ` +
    'When more exist, `Link: <…>; rel="next"` points at the next page.',
  createCategory:
    `${BETA_NOTE}\n\nAdds a category; the service assigns its id, above every category id and every ` +
    '`categoryId` an animal carries, so a new category never names an existing group by accident ' +
    '(use PUT to name one). Once a category has had the id 9007199254740991, or while an animal carries it, no ' +
    `id is left above it: 409 \`conflict\`, and PUT names the category instead. ${NAMES} ${RETRY}`,
  getCategory:
    `${BETA_NOTE}\n\nThe category, with its \`ETag\`; with \`If-None-Match\` naming it, ` +
    '304 without a body while it is unchanged.',
  putCategory:
    `${BETA_NOTE}\n\nGives the category with this id the name: creates it (201; the way to name a ` +
    '`categoryId` animals already carry), or renames it (200; the same name again changes nothing). ' +
    `${NAMES} ${IF_MATCH} With \`If-None-Match: *\`, only creates: 412 if it exists. ${RETRY}`,
  deleteCategory:
    `${BETA_NOTE}\n\nRemoves the category record; animals are never deleted with it. Refused with 409 while ` +
    'an animal (not deleted) carries its id: move or delete them first. ' +
    `No request body. ${IF_MATCH} ${RETRY}`,
}
