import assert from 'node:assert/strict'

/** The URL of `Link: <url>; rel="next"`, or undefined when the header is absent. */
export function nextLink(response: Response): string | undefined {
  const link = response.headers.get('link')
  if (link === null) return undefined
  const match = /^<([^>]+)>; rel="next"$/.exec(link)
  assert.ok(match, `unexpected Link header: ${link}`)
  return match[1]
}
