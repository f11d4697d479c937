import assert from 'node:assert/strict'

/** The URL of `Link: <url>; rel="next"`, or undefined when the header is absent. */
export function nextLink(response: Response): string | undefined {
  const link = response.headers.get('link')
  if (link === null) return undefined
  const match = /^<([^>]+)>; rel="next"$/.exec(link)
  assert.ok(match, `unexpected Link header: ${link}`)
  return match[1]
}

/** The path and query of a next link, to request from the same server (whatever origin the link names). */
function localPart(url: string): string {
  const parsed = new URL(url)
  return parsed.pathname + parsed.search
}

/** Every item of a paginated list: requests `firstPath`, then follows `Link: rel="next"` to the last page. */
export async function collectPages<T>(get: (path: string) => Promise<Response>, firstPath: string): Promise<T[]> {
  const items: T[] = []
  let path: string | undefined = firstPath
  while (path !== undefined) {
    const response = await get(path)
    assert.equal(response.status, 200, `GET ${path}`)
    items.push(...((await response.json()) as T[]))
    const next = nextLink(response)
    path = next === undefined ? undefined : localPart(next)
  }
  return items
}
