// Mutated requests: a valid request with one to three hostile changes to its body, content type, query,
// path or headers. Each mutation applies to any operation; which ones make sense is read from the operation.
import fc from 'fast-check'
import type { Operation } from './fuzz-document.js'
import { validRequest, type FuzzRequest, type RequestContext } from './fuzz-requests.js'
import { anyCodePoint } from './fuzz-schema-arbitrary.js'
import {
  BAD_AUTHORIZATION,
  MALFORMED_QUERIES,
  NAN_LIKE,
  NAUGHTY_STRINGS,
  ODD_BODIES,
  ODD_CONTENT_TYPES,
  ODD_NUMBERS,
  RAW_BYTES,
  RAW_PATH_SEGMENTS,
  UNKNOWN_PARAMETER_NAMES,
  WRONG_TYPE_VALUES,
} from './fuzz-values.js'

type Mutation = (request: FuzzRequest) => fc.Arbitrary<FuzzRequest>

/** A JSON object as raw `[key, value]` texts, so keys can repeat and values can be literals JSON.parse would change. */
type Entries = [string, string][]

const PROTOTYPE_ENTRIES: Entries[] = [
  [['"__proto__"', '{"polluted":1}']],
  [['"constructor"', '{"prototype":{"polluted":1}}']],
  [['"\\u005f_proto__"', '{"polluted":1}']],
  [['"__\\u0070roto__"', '{"polluted":1}']],
  [['"constructor"', '{"polluted":1}']],
  [['"prototype"', '{"polluted":1}']],
  [['"extra"', '{"__proto__":{"polluted":1}}']],
  [['"extra"', '[{"constructor":{"prototype":{"polluted":1}}}]']],
  [['"__proto__"', 'null']],
  [
    ['"__proto__"', '{"polluted":1}'],
    ['"__proto__"', '{"polluted":2}'],
  ],
]

const json = (value: unknown) => JSON.stringify(value)
const text = (entries: Entries) => `{${entries.map(([key, value]) => `${key}:${value}`).join(',')}}`
/**
 * Percent-encodes as UTF-8; a lone surrogate (which encodeURIComponent refuses) as the three bytes of its code unit, as
 * a sloppy client would.
 */
function percentEncode(value: string): string {
  let encoded = ''
  for (const character of value) {
    const code = character.codePointAt(0) ?? 0
    encoded +=
      code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            .map((byte) => `%${byte.toString(16).toUpperCase()}`)
            .join('')
        : encodeURIComponent(character)
  }
  return encoded
}

function entriesOf(request: FuzzRequest): Entries {
  if (typeof request.body !== 'string') return []
  try {
    const value: unknown = JSON.parse(request.body)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value).map(([key, item]) => [json(key), json(item)])
      : []
  } catch {
    return []
  }
}

function propertyNames(operation: Operation, request: FuzzRequest): string[] {
  const names = new Set([
    ...Object.keys(operation.body?.schema.properties ?? {}),
    ...entriesOf(request).map(([key]) => JSON.parse(key) as string),
  ])
  return names.size > 0 ? [...names] : ['name', 'id']
}

function withBody(request: FuzzRequest, body: string | Buffer | undefined, mutation: string): FuzzRequest {
  const headers = { ...request.headers }
  if (body !== undefined) headers['content-type'] ??= 'application/json'
  return { ...request, body, headers, mutations: [...request.mutations, mutation] }
}

function setProperty(request: FuzzRequest, values: fc.Arbitrary<string>, mutation: string): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(fc.constantFrom(...propertyNames(request.operation, request)), values)
    .map(([name, value]) =>
      withBody(
        request,
        text([...entriesOf(request).filter(([key]) => key !== json(name)), [json(name), value]]),
        mutation,
      ),
    )
}

function nested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
}

// Arbitraries that do not depend on the request are built once: building fast-check string arbitraries is not free.
const wrongType = fc.constantFrom(...WRONG_TYPE_VALUES)
const oddNumber = fc.constantFrom(...ODD_NUMBERS)
const naughtyString = fc.constantFrom(...NAUGHTY_STRINGS.map(json))
const randomString = fc.oneof(fc.string({ unit: anyCodePoint }), fc.string({ unit: 'binary-ascii' })).map(json)
const randomJson = fc.json({ maxDepth: 3 })
const rawBytes = fc.tuple(fc.constantFrom(...RAW_BYTES), fc.boolean())
const nesting = fc.tuple(
  fc.constantFrom(10, 100, 1000, 4000, 5400),
  fc.constantFrom('array' as const, 'object' as const),
  fc.boolean(),
)
const prototypeKeys = fc.tuple(fc.constantFrom(...PROTOTYPE_ENTRIES), fc.boolean())
const extraEntry = fc.tuple(
  fc.constantFrom('"id"', '"status"', '"complete"', '"extra"', '""', '"\\u0000"', '"__proto__x"'),
  wrongType,
)
const duplicateValue = fc.constantFrom(...WRONG_TYPE_VALUES, json('dup'))
const oddBody = fc.oneof(fc.constantFrom(...ODD_BODIES), fc.string({ unit: 'binary-ascii', maxLength: 50 }), fc.json())
const oversize = fc.constantFrom(17 * 1024, 64 * 1024)
const oddContentType = fc.option(fc.constantFrom(...ODD_CONTENT_TYPES), { nil: undefined, freq: 6 })

const bodyMutations: Mutation[] = [
  (request) => setProperty(request, wrongType, 'body: wrong type'),
  (request) => setProperty(request, oddNumber, 'body: odd number'),
  (request) => setProperty(request, naughtyString, 'body: naughty string'),
  (request) => setProperty(request, randomString, 'body: random string'),
  (request) => setProperty(request, randomJson, 'body: random JSON'),
  (request) =>
    rawBytes.map(([bytes, inString]) => {
      const valid = Buffer.from(typeof request.body === 'string' ? request.body : '{}')
      const at = Math.max(1, valid.indexOf('"', 2))
      const mutated = inString
        ? Buffer.concat([valid.subarray(0, at), bytes, valid.subarray(at)])
        : Buffer.concat([bytes, valid])
      return withBody(request, mutated, 'body: raw bytes')
    }),
  (request) =>
    nesting.chain(([depth, kind, whole]) =>
      whole
        ? fc.constant(withBody(request, nested(depth, kind), 'body: deep nesting'))
        : setProperty(request, fc.constant(nested(depth, kind)), 'body: deep nesting'),
    ),
  (request) =>
    prototypeKeys.map(([extra, first]) =>
      withBody(
        request,
        text(first ? [...extra, ...entriesOf(request)] : [...entriesOf(request), ...extra]),
        'body: prototype keys',
      ),
    ),
  (request) => {
    const required = request.operation.body?.schema.required ?? []
    return fc
      .subarray(required.length > 0 ? required : ['name'], { minLength: 1 })
      .map((missing) =>
        withBody(
          request,
          text(entriesOf(request).filter(([key]) => !missing.includes(JSON.parse(key) as string))),
          'body: missing required',
        ),
      )
  },
  (request) =>
    extraEntry.map((entry) => withBody(request, text([...entriesOf(request), entry]), 'body: extra property')),
  (request) =>
    fc
      .tuple(fc.constantFrom(...propertyNames(request.operation, request)), duplicateValue)
      .map(([name, value]) =>
        withBody(request, text([...entriesOf(request), [json(name), value]]), 'body: duplicate key'),
      ),
  (request) => oddBody.map((body) => withBody(request, body, 'body: not an object')),
  (request) =>
    oversize.map((size) =>
      withBody(request, text([...entriesOf(request), ['"padding"', json('x'.repeat(size))]]), 'body: oversized'),
    ),
  (request) =>
    fc.boolean().map((keepType) => {
      const headers = { ...request.headers }
      if (keepType) headers['content-type'] = 'application/json'
      else delete headers['content-type']
      return { ...request, body: undefined, headers, mutations: [...request.mutations, 'body: absent'] }
    }),
  (request) =>
    oddContentType.map((type) => {
      const headers: Record<string, string> = { ...request.headers }
      if (type === undefined) delete headers['content-type']
      else headers['content-type'] = type
      return { ...request, body: request.body ?? '{}', headers, mutations: [...request.mutations, 'content type: odd'] }
    }),
]

/** Hostile texts as they go into a URL, encoded once. */
const ENCODED_TEXT_VALUES = [...ODD_NUMBERS, ...NAN_LIKE, ...NAUGHTY_STRINGS].map(percentEncode)
const queryValue = fc.oneof(
  fc.constantFrom(...ENCODED_TEXT_VALUES),
  fc.constantFrom(...MALFORMED_QUERIES),
  fc.string({ unit: anyCodePoint }).map(encodeURIComponent),
)
// WHATWG URL parsing (inject and fetch) resolves dot segments, which would change the route, not the value.
const pathValue = fc
  .oneof(
    fc.constantFrom(...ENCODED_TEXT_VALUES),
    fc.constantFrom(...RAW_PATH_SEGMENTS),
    fc.string({ unit: anyCodePoint }).map(encodeURIComponent),
  )
  .filter((item) => !/^(\.|%2e){1,2}$/i.test(item))
const duplicatePair = fc.tuple(
  fc.constantFrom('1', '2', 'sold', 'available', ''),
  fc.constantFrom('1', '100', 'pending', ''),
)
const unknownParameter = fc.tuple(
  fc.oneof(
    fc.constantFrom(...UNKNOWN_PARAMETER_NAMES),
    fc.string({ unit: anyCodePoint, minLength: 1 }).map(encodeURIComponent),
  ),
  fc.constantFrom('1', '', 'x', '%00'),
)
const malformedQuery = fc.constantFrom(...MALFORMED_QUERIES)

function queryNames(request: FuzzRequest): fc.Arbitrary<string> {
  const names = request.operation.parameters
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) => encodeURIComponent(parameter.name))
  return fc.constantFrom(...(names.length > 0 ? names : ['limit']))
}

const queryMutations: Mutation[] = [
  (request) =>
    fc.tuple(queryNames(request), queryValue).map(([name, item]) => ({
      ...request,
      query: [...request.query.filter(([key]) => key !== name), [name, item]],
      mutations: [...request.mutations, 'query: bad value'],
    })),
  (request) =>
    fc.tuple(queryNames(request), duplicatePair).map(([name, [first, second]]) => ({
      ...request,
      query: [...request.query, [name, first], [name, second]],
      mutations: [...request.mutations, 'query: duplicate'],
    })),
  (request) =>
    unknownParameter.map(([name, value]) => ({
      ...request,
      query: [...request.query, [name, value]],
      mutations: [...request.mutations, 'query: unknown parameter'],
    })),
  (request) =>
    malformedQuery.map((rawQuery) => ({ ...request, rawQuery, mutations: [...request.mutations, 'query: malformed'] })),
]

const pathMutation: Mutation = (request) =>
  fc.tuple(fc.constantFrom(...Object.keys(request.pathValues)), pathValue).map(([name, item]) => ({
    ...request,
    pathValues: { ...request.pathValues, [name]: item },
    mutations: [...request.mutations, 'path: bad value'],
    // An empty segment is another path (`/pets/`), which may be unknown: a 404 is then the route's answer.
    ...(item === '' ? { unrouted: [404] } : {}),
  }))

const badAuthorization = fc.constantFrom(...BAD_AUTHORIZATION)
const oddHeader = fc.tuple(
  fc.constantFrom(
    'x-request-id',
    'accept',
    'accept-encoding',
    'accept-charset',
    'x-forwarded-for',
    'x-http-method-override',
    'origin',
    'range',
    'if-none-match',
    'x-custom',
  ),
  fc.oneof(
    fc.constantFrom(...NAUGHTY_STRINGS.filter((value) => /^[\x20-\x7e]*$/.test(value))),
    fc.string({ unit: 'grapheme-ascii' }),
    fc.constantFrom('application/xml', 'text/html', '*/*', 'gzip, br, zstd', 'DELETE', 'bytes=0-1'),
  ),
)
const wrongLength = fc.constantFrom('0', '1', '5', '100000', '-1', 'abc')

function headerMutations(context: RequestContext): Mutation[] {
  return [
    (request) =>
      badAuthorization.map((value) => {
        const headers = { ...request.headers }
        if (value === undefined) delete headers.authorization
        else headers.authorization = value.replaceAll('KEY', context.apiKey)
        return { ...request, headers, mutations: [...request.mutations, 'header: bad authorization'] }
      }),
    (request) =>
      oddHeader.map(([name, value]) => ({
        ...request,
        headers: { ...request.headers, [name]: value.trim() },
        mutations: [...request.mutations, 'header: odd value'],
      })),
    (request) =>
      wrongLength.map((length) => ({
        ...request,
        body: request.body ?? '{}',
        headers: { 'content-type': 'application/json', ...request.headers, 'content-length': length },
        mutations: [...request.mutations, 'header: wrong content-length'],
      })),
  ]
}

function mutationsFor(operation: Operation, context: RequestContext): Mutation[] {
  return [
    ...bodyMutations,
    ...queryMutations,
    ...(operation.parameters.some((parameter) => parameter.in === 'path')
      ? [pathMutation, pathMutation, pathMutation]
      : []),
    ...headerMutations(context),
    ...(operation.method === 'GET'
      ? [
          (request: FuzzRequest) =>
            fc.constant<FuzzRequest>({ ...request, method: 'HEAD', mutations: [...request.mutations, 'method: HEAD'] }),
        ]
      : []),
  ]
}

/** A valid request with one to three mutations applied. */
export function mutatedRequest(operation: Operation, context: RequestContext): fc.Arbitrary<FuzzRequest> {
  const mutations = mutationsFor(operation, context)
  const mutate: Mutation = (request) =>
    fc.integer({ min: 0, max: mutations.length - 1 }).chain((index) => (mutations[index] as Mutation)(request))
  return fc.tuple(validRequest(operation, context), fc.integer({ min: 1, max: 3 })).chain(([request, count]) => {
    let arbitrary = mutate(request)
    for (let round = 1; round < count; round++) arbitrary = arbitrary.chain(mutate)
    return arbitrary
  })
}
