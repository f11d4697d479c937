// Keyset pagination, the same for every collection: the page size, the extra row that tells whether more
// follow, and the `Link: rel="next"` header (RFC 8288) carrying the signed cursor (cursor.ts).
import { Type } from 'typebox'
import { documentedAs } from './openapi/openapi-names.js'

export const DEFAULT_PAGE_SIZE = 20
export const MAX_PAGE_SIZE = 100

/** What a cursor looks like (for the document's examples): the signed position after id 20, without a filter. */
const CURSOR_EXAMPLE = 'MjAu.Yq3v8c0nXb2tq1Jp4k5mWg'

/**
 * The `cursor` query parameter. The service checks a cursor by its signature (cursor.ts), which also refuses
 * anything not of this shape; the document states the shape as a pattern so that clients and tools know it.
 */
export const CursorParameter = (note: string) => {
  const description = `Opaque position from a previous page's \`Link: rel="next"\`. ${note}`
  return documentedAs(Type.String({ minLength: 1, maxLength: 256, description, examples: [CURSOR_EXAMPLE] }), {
    type: 'string',
    minLength: 1,
    maxLength: 256,
    pattern: '^[A-Za-z0-9_-]{2,64}\\.[A-Za-z0-9_-]{22}$',
    description,
    examples: [CURSOR_EXAMPLE],
  })
}

/** The `limit` query parameter of a collection of `things`. */
export const pageLimit = (things: string) =>
  Type.Optional(
    Type.Integer({
      format: 'int32',
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Maximum number of ${things} returned (1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}).`,
      examples: [DEFAULT_PAGE_SIZE],
    }),
  )

/** Up to `limit` items in ascending id order, and the id to continue after when more follow. */
export interface Page<Item> {
  items: Item[]
  nextAfterId: number | undefined
}

/** Rows to read for a page of `limit`: one more than asked tells whether a next page exists, without a second query. */
export const rowsToFetch = (limit: number): number => limit + 1

/** The page in `rows` (read with rowsToFetch), with the id to continue after when the extra row came back. */
export function pageOf<Row, Item extends { id: number }>(
  rows: Row[],
  limit: number,
  toItem: (row: Row) => Item,
): Page<Item> {
  const items = rows.slice(0, limit).map(toItem)
  return { items, nextAfterId: rows.length > limit ? items.at(-1)?.id : undefined }
}

// The next page's query string (with its HMAC-signed cursor) depends only on the page: made once per page
// object, so a page served from a cache does not sign its cursor again.
const nextQueries = new WeakMap<Page<unknown>, string>()

/**
 * The `Link` header value pointing at the page after `page` (`<origin/path?query>; rel="next"`), or undefined
 * when `page` is the last one. `query` gives the next page's parameters, cursor included.
 */
export function nextPageLink(
  url: string,
  page: Page<unknown>,
  query: (nextAfterId: number) => Record<string, string>,
): string | undefined {
  if (page.nextAfterId === undefined) return undefined
  let search = nextQueries.get(page)
  if (search === undefined) {
    search = String(new URLSearchParams(query(page.nextAfterId)))
    nextQueries.set(page, search)
  }
  return `<${url}?${search}>; rel="next"`
}
