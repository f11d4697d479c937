// Every link in the documentation works for someone who cloned the repository: a relative link names a file or
// folder inside it, an anchor names a heading of its page as GitHub makes them, and no link leaves the repository
// except to a published standard (a reader offline still has the repository; standards outlive any web page).
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'

const ROOT = process.cwd()
const PAGES = [
  'README.md',
  'client/README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]
// Published standards: the IETF's RFCs and drafts, W3C and WHATWG specifications, the OpenAPI specification.
const STANDARDS = [
  /^https:\/\/www\.rfc-editor\.org\//,
  /^https:\/\/datatracker\.ietf\.org\/doc\//,
  /^https:\/\/www\.w3\.org\/TR\//,
  /^https:\/\/[a-z]+\.spec\.whatwg\.org\//,
  /^https:\/\/spec\.openapis\.org\//,
]

/** The page without its fenced code blocks and code spans, whose text is not markdown. */
function prose(markdown: string): string {
  return markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '').replace(/(`+)[^`]*?\1/g, '')
}

/** A heading's anchor as GitHub makes it: lower case, only letters, digits, spaces, `-` and `_`, spaces as `-`. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** The anchors a page offers: its headings (the second of a name gets `-1`, …) and explicit `id`s. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  const withoutFences = markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '')
  for (const match of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = slug(match[1] ?? '')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  for (const match of markdown.matchAll(/\b(?:id|name)="([^"]+)"/g)) anchors.add(match[1] ?? '')
  return anchors
}

/** Every link target of a page: inline links and images, reference definitions, autolinks and bare URLs. */
function linksOf(markdown: string): string[] {
  const text = prose(markdown)
  const inline = [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1])
  const definitions = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1])
  const bare = [...text.replace(/\]\([^)]*\)/g, ']').matchAll(/<?\b(https?:\/\/[^\s<>)]+)/g)].map((match) => match[1])
  return [...inline, ...definitions, ...bare].filter((target): target is string => Boolean(target))
}

/** What is wrong with one link of `page`, or undefined when it resolves. */
function problemWith(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    if (STANDARDS.some((standard) => standard.test(target))) return undefined
    return 'leaves the repository (only links to published standards may)'
  }
  const [path = '', anchor] = target.split('#', 2)
  const file = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), decodeURIComponent(path))
  const inside = relative(ROOT, file)
  if (inside.startsWith('..') || inside.startsWith('/')) return 'points outside the repository'
  if (!existsSync(file)) return `names ${inside}, which does not exist`
  if (anchor === undefined || !file.endsWith('.md') || statSync(file).isDirectory()) return undefined
  if (!anchorsOf(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor)))
    return `names #${anchor}, which is no heading of ${inside}`
  return undefined
}

describe('the links of README.md, docs/ and client/README.md', () => {
  it('makes anchors as GitHub does', () => {
    assert.equal(slug('Store orders (beta)'), 'store-orders-beta')
    assert.equal(
      slug('Flooding the public routes (`npm run bench:flood`)'),
      'flooding-the-public-routes-npm-run-benchflood',
    )
    assert.equal(slug('Scale: 1,000 → 1,000,000 pets'), 'scale-1000--1000000-pets')
    assert.deepEqual([...anchorsOf('# A\n\n```sh\n# not a heading\n```\n\n## A\n')], ['a', 'a-1'])
  })

  it('finds links to check: relative ones, anchors, and the ones that leave', () => {
    const links = PAGES.flatMap((page) => linksOf(readFileSync(page, 'utf8')))
    assert.ok(
      links.some((link) => link.startsWith('docs/')),
      'README.md links into docs/',
    )
    assert.ok(
      links.some((link) => link.includes('#')),
      'some link has an anchor',
    )
    assert.deepEqual(linksOf('[a](x.md) `[b](y.md)` <https://example.com/a> https://example.com/b'), [
      'x.md',
      'https://example.com/a',
      'https://example.com/b',
    ])
    assert.equal(
      problemWith('README.md', 'https://example.com/'),
      'leaves the repository (only links to published standards may)',
    )
    assert.equal(problemWith('README.md', '../outside.md'), 'points outside the repository')
    assert.equal(problemWith('README.md', 'https://www.rfc-editor.org/rfc/rfc9110'), undefined)
  })

  for (const page of PAGES) {
    it(`${page}: every link resolves and stays in the repository`, () => {
      const problems = linksOf(readFileSync(page, 'utf8'))
        .map((target) => [target, problemWith(page, target)] as const)
        .filter(([, problem]) => problem !== undefined)
        .map(([target, problem]) => `${target}: ${problem}`)
      assert.deepEqual(problems, [])
    })
  }
})
