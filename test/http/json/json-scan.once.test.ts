// findJsonProblem against independent oracles: duplicates are known by construction of a random document tree
// (serialised with random escapes in keys and random white space), and inexact numbers by the regular-expression
// scan the one-pass scanner replaced.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { findJsonProblem, type JsonProblem } from '../../../src/http/json/json-scan.js'
import { ODD_NUMBERS } from '../../helpers/fuzz-values.js'

type Node =
  { kind: 'leaf'; text: string } | { kind: 'array'; items: Node[] } | { kind: 'object'; entries: [string, Node][] }

const KEYS = ['a', 'b', 'name', '', 'a/b', '~', 'é', '🐕', '"', '\\']

/** Any JSON text for the key: some characters written as \u escapes (a surrogate pair for one beyond U+FFFF). */
const keyText = (key: string) =>
  fc
    .array(fc.boolean(), { minLength: key.length, maxLength: key.length })
    .map(
      (escapes) =>
        `"${[...key]
          .map((character, index) =>
            escapes[index] || character === '"' || character === '\\'
              ? [...Array(character.length).keys()]
                  .map((unit) => `\\u${character.charCodeAt(unit).toString(16).padStart(4, '0')}`)
                  .join('')
              : character,
          )
          .join('')}"`,
    )

const space = fc.constantFrom('', ' ', '\n', '\t ')

const leaf = fc
  .constantFrom('1', '-2', '0.5', 'true', 'false', 'null', '"text"', '"a\\"b"', '"{\\"a\\":1,\\"a\\":2}"')
  .map((text): Node => ({ kind: 'leaf', text }))

const tree = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('node'), { maxLength: 4 }).map((items): Node => ({ kind: 'array', items })),
    fc
      .array(fc.tuple(fc.constantFrom(...KEYS), tie('node')), { maxLength: 5 })
      .map((entries): Node => ({ kind: 'object', entries })),
  ),
})).node

/** The tree as JSON text, each key written with escapes of its own choosing. */
function serialise(node: Node): fc.Arbitrary<string> {
  switch (node.kind) {
    case 'leaf':
      return fc.tuple(space, space).map(([before, after]) => `${before}${node.text}${after}`)
    case 'array':
      return fc.tuple(...node.items.map((item) => serialise(item))).map((items) => `[${items.join(',')}]`)
    case 'object':
      return fc
        .tuple(...node.entries.map(([key, value]) => fc.tuple(keyText(key), space, serialise(value))))
        .map((entries) => `{${entries.map(([key, before, value]) => `${before}${key}:${value}`).join(',')}}`)
  }
}

/** The first key repeated in its object, in reading order, with its pointer. */
function firstDuplicate(node: Node, path: string[] = []): JsonProblem | undefined {
  if (node.kind === 'array') {
    for (const [index, item] of node.items.entries()) {
      const found = firstDuplicate(item, [...path, String(index)])
      if (found) return found
    }
  }
  if (node.kind === 'object') {
    const seen = new Set<string>()
    for (const [key, value] of node.entries) {
      if (seen.has(key))
        return {
          kind: 'duplicate-key',
          key,
          pointer: [...path, key].map((token) => `/${token.replaceAll('~', '~0').replaceAll('/', '~1')}`).join(''),
        }
      seen.add(key)
      const found = firstDuplicate(value, [...path, key])
      if (found) return found
    }
  }
  return undefined
}

/** The scan findJsonProblem replaced, for numbers. */
function oldInexactNumber(json: string): string | undefined {
  for (const [token] of json.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
    if (token.startsWith('"')) continue
    const value = Number(token)
    if (!Number.isFinite(value)) return token
    if (Number.isInteger(value) && !(/^-?\d+$/.test(token) && Number.isSafeInteger(value))) return token
  }
  return undefined
}

describe('findJsonProblem', () => {
  it('finds exactly the first duplicate key of any document, escaped keys included', () => {
    let duplicates = 0
    fc.assert(
      fc.property(
        tree.chain((node) => serialise(node).map((text) => [node, text] as const)),
        ([node, text]) => {
          JSON.parse(text)
          const expected = firstDuplicate(node)
          if (expected) duplicates++
          assert.deepEqual(findJsonProblem(text), expected)
        },
      ),
      { numRuns: 2000 },
    )
    // The generator is worth something only if it makes both kinds of documents often.
    assert.ok(duplicates > 200 && duplicates < 1800, `${duplicates} of 2000 documents had a duplicate`)
  })

  it('finds duplicates among many keys (beyond the list limit)', () => {
    const keys = Array.from({ length: 50 }, (_, index) => `"k${index}":${index}`)
    assert.equal(findJsonProblem(`{${keys.join(',')}}`), undefined)
    assert.deepEqual(findJsonProblem(`{${keys.join(',')},"k\\u0033":0}`), {
      kind: 'duplicate-key',
      key: 'k3',
      pointer: '/k3',
    })
  })

  it("points at an inexact number's place, escaping / and ~ in keys", () => {
    assert.deepEqual(findJsonProblem('{"a":[{"b":1.0}]}'), {
      kind: 'inexact-number',
      literal: '1.0',
      pointer: '/a/0/b',
    })
    assert.deepEqual(findJsonProblem('{"a/b~":[0,1e400]}'), {
      kind: 'inexact-number',
      literal: '1e400',
      pointer: '/a~1b~0/1',
    })
    assert.deepEqual(findJsonProblem('9007199254740993'), {
      kind: 'inexact-number',
      literal: '9007199254740993',
      pointer: '',
    })
  })

  it('reports the same number literals as the scan it replaced', () => {
    const literal = fc.oneof(
      fc.constantFrom(...ODD_NUMBERS),
      fc.integer().map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
    )
    fc.assert(
      fc.property(fc.array(literal, { minLength: 1, maxLength: 6 }), (literals) => {
        const text = `{"s":"1e0 9007199254740993","values":[${literals.join(',')}],"x":{"n":${literals[0]}}}`
        JSON.parse(text)
        const expected = oldInexactNumber(text)
        // The first inexact literal is read in `values` (the string's text is not a number).
        assert.deepEqual(
          findJsonProblem(text),
          expected === undefined
            ? undefined
            : { kind: 'inexact-number', literal: expected, pointer: `/values/${literals.indexOf(expected)}` },
        )
      }),
      { numRuns: 2000 },
    )
  })
})
