// The breaking-change gate's bounds: multipleOf, uniqueItems and minContains/maxContains are compared like the
// other bounds (tightened in what the service reads, loosened in what it writes), and a range bound is compared as
// the range it leaves, so that minimum 1 and exclusiveMinimum 0 are one bound on an integer and two on a number.
// Each case sets the keywords it names in one schema of a copy of the committed document, once before and once
// after, and requires exactly the changes listed: in a path parameter, a request body, a response, a webhook
// payload (written by the service) and a receiver's answer to it (read by the service).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { CURRENT, breakingChanges, lastRelease, readAcceptances, BASELINE } from '../../scripts/openapi-breaking.js'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const read = (path: string): Json => JSON.parse(readFileSync(path, 'utf8')) as Json
const current = read(CURRENT)
const schemas = (document: Json): Json => document.components.schemas
const json = (media: Json): Json => media.content['application/json']

/** The operations the cases edit: the diff tool takes seconds over the whole document, and a case judges two. */
const OPERATIONS: Record<string, string> = {
  '/pets/{petId}': 'get',
  '/store/orders': 'post',
  '/store/orders/{orderId}': 'get',
  '/webhooks': 'post',
  '/webhooks/{webhookId}': 'get',
}

/** The committed document with only the operations the cases edit. */
function operations(): Json {
  const document = structuredClone(current)
  document.paths = Object.fromEntries(
    Object.entries(OPERATIONS).map(([route, method]) => [route, { [method]: document.paths[route][method] }]),
  )
  return document
}

/**
 * Those operations with the schemas a case edits made their own where they are shared (so that an edit shows in
 * one place), an array in the webhook payload and a body in the receiver's answer.
 */
function base(): Json {
  const document = operations()
  json(document.paths['/store/orders/{orderId}'].get.responses['200']).schema = structuredClone(schemas(document).Order)
  json(document.paths['/webhooks/{webhookId}'].get.responses['200']).schema = structuredClone(schemas(document).Webhook)
  const delivery = document.webhooks.event.post
  const payload = structuredClone(schemas(document).Event)
  payload.properties.tags = { type: 'array', items: { type: 'string' } }
  json(delivery.requestBody).schema = payload
  delivery.responses['2XX'].content = {
    'application/json': {
      schema: {
        type: 'object',
        properties: { retryIn: { type: 'integer', minimum: 1 }, ids: { type: 'array', items: { type: 'integer' } } },
      },
    },
  }
  return document
}

/** The places, each with the schema a case edits and the path the gate names it by. */
const PLACES = {
  pathParameter: {
    at: (document: Json): Json => document.paths['/pets/{petId}'].get.parameters[0].schema,
    path: 'paths//pets/{petId}/get/parameters/0/schema',
  },
  requestNumber: {
    at: (document: Json): Json => schemas(document).NewOrder.properties.quantity,
    path: 'paths//store/orders/post/requestBody/content/application/json/schema/properties/quantity',
  },
  requestArray: {
    at: (document: Json): Json => schemas(document).NewWebhook.properties.types,
    path: 'paths//webhooks/post/requestBody/content/application/json/schema/properties/types',
  },
  responseNumber: {
    at: (document: Json): Json =>
      json(document.paths['/store/orders/{orderId}'].get.responses['200']).schema.properties.quantity,
    path: 'paths//store/orders/{orderId}/get/responses/200/content/application/json/schema/properties/quantity',
  },
  responseArray: {
    at: (document: Json): Json =>
      json(document.paths['/webhooks/{webhookId}'].get.responses['200']).schema.properties.types,
    path: 'paths//webhooks/{webhookId}/get/responses/200/content/application/json/schema/properties/types',
  },
  payloadNumber: {
    at: (document: Json): Json => json(document.webhooks.event.post.requestBody).schema.properties.id,
    path: 'webhooks/event/post/requestBody/content/application/json/schema/properties/id',
  },
  payloadArray: {
    at: (document: Json): Json => json(document.webhooks.event.post.requestBody).schema.properties.tags,
    path: 'webhooks/event/post/requestBody/content/application/json/schema/properties/tags',
  },
  answerNumber: {
    at: (document: Json): Json => json(document.webhooks.event.post.responses['2XX']).schema.properties.retryIn,
    path: 'webhooks/event/post/responses/2XX/content/application/json/schema/properties/retryIn',
  },
  answerArray: {
    at: (document: Json): Json => json(document.webhooks.event.post.responses['2XX']).schema.properties.ids,
    path: 'webhooks/event/post/responses/2XX/content/application/json/schema/properties/ids',
  },
}
type Place = keyof typeof PLACES

/** The base document with `keywords` set in the schema at `place` (undefined: taken out). */
function withKeywords(place: Place, keywords: Json): Json {
  const document = base()
  const schema = PLACES[place].at(document)
  for (const [keyword, value] of Object.entries(keywords))
    if (value === undefined) Reflect.deleteProperty(schema, keyword)
    else schema[keyword] = value
  return document
}

/** The changes the gate reports (`action keyword`, at the place) when the schema at `place` goes `from` → `to`. */
function judged(place: Place, from: Json, to: Json, accepted: Parameters<typeof breakingChanges>[2] = []): string[] {
  return breakingChanges(withKeywords(place, from), withKeywords(place, to), accepted).map((change) =>
    change.path.startsWith(`${PLACES[place].path}/`)
      ? `${change.action} ${change.path.slice(PLACES[place].path.length + 1)}`
      : `${change.action} ${change.path}`,
  )
}

interface Case {
  place: Place
  from: Json
  to: Json
  expected: string[]
}

function check(cases: Case[]): void {
  for (const { place, from, to, expected } of cases)
    assert.deepEqual(judged(place, from, to), expected, `${place}: ${JSON.stringify(from)} → ${JSON.stringify(to)}`)
}

/** A number schema rather than an integer one (int32 is an integer format). */
const NUMBER = { type: 'number', format: undefined }
const CONTAINS = { contains: { const: 'pet.created' } }

describe('the breaking-change gate on bounds', () => {
  it('reports multipleOf added or no longer dividing the old one in what the service reads', () => {
    check([
      { place: 'requestNumber', from: {}, to: { multipleOf: 2 }, expected: ['add multipleOf'] },
      { place: 'requestNumber', from: { multipleOf: 2 }, to: { multipleOf: 4 }, expected: ['replace multipleOf'] },
      { place: 'requestNumber', from: { multipleOf: 2 }, to: { multipleOf: 3 }, expected: ['replace multipleOf'] },
      { place: 'requestNumber', from: { multipleOf: 4 }, to: { multipleOf: 2 }, expected: [] },
      { place: 'requestNumber', from: { multipleOf: 2 }, to: { multipleOf: undefined }, expected: [] },
      { place: 'pathParameter', from: {}, to: { multipleOf: 2 }, expected: ['add multipleOf'] },
      { place: 'pathParameter', from: { multipleOf: 4 }, to: { multipleOf: 2 }, expected: [] },
      { place: 'answerNumber', from: { multipleOf: 2 }, to: { multipleOf: 4 }, expected: ['replace multipleOf'] },
      { place: 'answerNumber', from: { multipleOf: 4 }, to: { multipleOf: 2 }, expected: [] },
      // Decimal steps: 0.1 divides 0.3 although 0.3 / 0.1 is not exactly 3 in binary floating point.
      {
        place: 'requestNumber',
        from: { ...NUMBER, multipleOf: 0.3 },
        to: { ...NUMBER, multipleOf: 0.1 },
        expected: [],
      },
      {
        place: 'requestNumber',
        from: { ...NUMBER, multipleOf: 0.1 },
        to: { ...NUMBER, multipleOf: 0.3 },
        expected: ['replace multipleOf'],
      },
    ])
  })

  it('reports multipleOf removed or no longer a multiple of the old one in what the service writes', () => {
    check([
      { place: 'responseNumber', from: { multipleOf: 4 }, to: { multipleOf: 2 }, expected: ['replace multipleOf'] },
      { place: 'responseNumber', from: { multipleOf: 2 }, to: { multipleOf: 3 }, expected: ['replace multipleOf'] },
      {
        place: 'responseNumber',
        from: { multipleOf: 2 },
        to: { multipleOf: undefined },
        expected: ['remove multipleOf'],
      },
      { place: 'responseNumber', from: { multipleOf: 2 }, to: { multipleOf: 4 }, expected: [] },
      { place: 'responseNumber', from: {}, to: { multipleOf: 2 }, expected: [] },
      { place: 'payloadNumber', from: { multipleOf: 4 }, to: { multipleOf: 2 }, expected: ['replace multipleOf'] },
      {
        place: 'payloadNumber',
        from: { multipleOf: 2 },
        to: { multipleOf: undefined },
        expected: ['remove multipleOf'],
      },
      { place: 'payloadNumber', from: { multipleOf: 2 }, to: { multipleOf: 4 }, expected: [] },
      { place: 'payloadNumber', from: {}, to: { multipleOf: 2 }, expected: [] },
    ])
  })

  it('reports uniqueItems made true in what the service reads, and no longer true in what it writes', () => {
    check([
      // NewWebhook.types and Webhook.types are unique in the committed document.
      {
        place: 'requestArray',
        from: { uniqueItems: undefined },
        to: { uniqueItems: true },
        expected: ['add uniqueItems'],
      },
      {
        place: 'requestArray',
        from: { uniqueItems: false },
        to: { uniqueItems: true },
        expected: ['replace uniqueItems'],
      },
      { place: 'requestArray', from: {}, to: { uniqueItems: undefined }, expected: [] },
      { place: 'requestArray', from: {}, to: { uniqueItems: false }, expected: [] },
      { place: 'answerArray', from: {}, to: { uniqueItems: true }, expected: ['add uniqueItems'] },
      { place: 'answerArray', from: { uniqueItems: true }, to: {}, expected: [] },
      { place: 'responseArray', from: {}, to: { uniqueItems: undefined }, expected: ['remove uniqueItems'] },
      { place: 'responseArray', from: {}, to: { uniqueItems: false }, expected: ['replace uniqueItems'] },
      { place: 'responseArray', from: { uniqueItems: undefined }, to: { uniqueItems: true }, expected: [] },
      { place: 'payloadArray', from: { uniqueItems: true }, to: {}, expected: ['remove uniqueItems'] },
      { place: 'payloadArray', from: {}, to: { uniqueItems: true }, expected: [] },
    ])
  })

  it('reports minContains and maxContains like minItems and maxItems', () => {
    check([
      { place: 'requestArray', from: CONTAINS, to: { ...CONTAINS, minContains: 2 }, expected: ['add minContains'] },
      {
        place: 'requestArray',
        from: { ...CONTAINS, minContains: 1 },
        to: { ...CONTAINS, minContains: 2 },
        expected: ['replace minContains'],
      },
      {
        place: 'requestArray',
        from: { ...CONTAINS, minContains: 2 },
        to: { ...CONTAINS, minContains: 1 },
        expected: [],
      },
      { place: 'requestArray', from: CONTAINS, to: { ...CONTAINS, maxContains: 3 }, expected: ['add maxContains'] },
      {
        place: 'requestArray',
        from: { ...CONTAINS, maxContains: 3 },
        to: { ...CONTAINS, maxContains: 2 },
        expected: ['replace maxContains'],
      },
      {
        place: 'requestArray',
        from: { ...CONTAINS, maxContains: 2 },
        to: { ...CONTAINS, maxContains: 3 },
        expected: [],
      },
      { place: 'answerArray', from: CONTAINS, to: { ...CONTAINS, minContains: 2 }, expected: ['add minContains'] },
      {
        place: 'responseArray',
        from: { ...CONTAINS, minContains: 2 },
        to: { ...CONTAINS, minContains: 1 },
        expected: ['replace minContains'],
      },
      {
        place: 'responseArray',
        from: { ...CONTAINS, maxContains: 2 },
        to: { ...CONTAINS, maxContains: undefined },
        expected: ['remove maxContains'],
      },
      {
        place: 'responseArray',
        from: { ...CONTAINS, minContains: 1 },
        to: { ...CONTAINS, minContains: 2 },
        expected: [],
      },
      {
        place: 'payloadArray',
        from: { ...CONTAINS, maxContains: 2 },
        to: { ...CONTAINS, maxContains: 3 },
        expected: ['replace maxContains'],
      },
      {
        place: 'payloadArray',
        from: { ...CONTAINS, maxContains: 3 },
        to: { ...CONTAINS, maxContains: 2 },
        expected: [],
      },
    ])
  })

  it('passes an integer bound restated in its exclusive form, or back (minimum n is exclusiveMinimum n - 1)', () => {
    const lower = { minimum: undefined, exclusiveMinimum: 0 }
    check([
      // NewOrder.quantity and Order.quantity are 1 to 100; petId and Event.id are 1 to 2^53 - 1.
      { place: 'requestNumber', from: {}, to: lower, expected: [] },
      { place: 'requestNumber', from: lower, to: { minimum: 1, exclusiveMinimum: undefined }, expected: [] },
      { place: 'requestNumber', from: {}, to: { maximum: undefined, exclusiveMaximum: 101 }, expected: [] },
      { place: 'requestNumber', from: { minimum: 5 }, to: { minimum: undefined, exclusiveMinimum: 4 }, expected: [] },
      { place: 'requestNumber', from: {}, to: { minimum: undefined, exclusiveMinimum: 0.5 }, expected: [] },
      { place: 'requestNumber', from: {}, to: { minimum: 0.5 }, expected: [] },
      { place: 'pathParameter', from: {}, to: lower, expected: [] },
      { place: 'pathParameter', from: {}, to: { maximum: undefined, exclusiveMaximum: 2 ** 53 }, expected: [] },
      { place: 'answerNumber', from: {}, to: lower, expected: [] },
      { place: 'responseNumber', from: {}, to: lower, expected: [] },
      { place: 'responseNumber', from: {}, to: { maximum: undefined, exclusiveMaximum: 101 }, expected: [] },
      { place: 'responseNumber', from: lower, to: { minimum: 1, exclusiveMinimum: undefined }, expected: [] },
      { place: 'payloadNumber', from: {}, to: lower, expected: [] },
      { place: 'payloadNumber', from: {}, to: { maximum: undefined, exclusiveMaximum: 2 ** 53 }, expected: [] },
    ])
  })

  it('reports a range tightened (read) or loosened (written) through an exclusive bound', () => {
    check([
      {
        place: 'requestNumber',
        from: {},
        to: { minimum: undefined, exclusiveMinimum: 1 },
        expected: ['add exclusiveMinimum'],
      },
      { place: 'requestNumber', from: {}, to: { exclusiveMinimum: 1 }, expected: ['add exclusiveMinimum'] },
      {
        place: 'requestNumber',
        from: {},
        to: { maximum: undefined, exclusiveMaximum: 100 },
        expected: ['add exclusiveMaximum'],
      },
      {
        place: 'requestNumber',
        from: { minimum: undefined, exclusiveMinimum: 0 },
        to: { minimum: undefined, exclusiveMinimum: 1 },
        expected: ['replace exclusiveMinimum'],
      },
      {
        place: 'requestNumber',
        from: { minimum: undefined, exclusiveMinimum: 0 },
        to: { minimum: 2, exclusiveMinimum: undefined },
        expected: ['add minimum'],
      },
      {
        place: 'pathParameter',
        from: {},
        to: { minimum: undefined, exclusiveMinimum: 1 },
        expected: ['add exclusiveMinimum'],
      },
      {
        place: 'answerNumber',
        from: {},
        to: { minimum: undefined, exclusiveMinimum: 1 },
        expected: ['add exclusiveMinimum'],
      },
      {
        place: 'responseNumber',
        from: {},
        to: { minimum: undefined, exclusiveMinimum: -1 },
        expected: ['remove minimum'],
      },
      {
        place: 'responseNumber',
        from: { maximum: undefined, exclusiveMaximum: 101 },
        to: { maximum: undefined, exclusiveMaximum: 102 },
        expected: ['replace exclusiveMaximum'],
      },
      {
        place: 'payloadNumber',
        from: {},
        to: { minimum: undefined, exclusiveMinimum: -1 },
        expected: ['remove minimum'],
      },
      // A tighter range read, or a looser one written, is no break.
      { place: 'requestNumber', from: {}, to: { minimum: undefined, exclusiveMinimum: -1 }, expected: [] },
      { place: 'responseNumber', from: {}, to: { minimum: undefined, exclusiveMinimum: 1 }, expected: [] },
      { place: 'payloadNumber', from: {}, to: { exclusiveMinimum: 1 }, expected: [] },
    ])
  })

  it('compares a number range by its exclusive bound: minimum 1 → exclusiveMinimum 0 now takes 0.5', () => {
    const lower = { ...NUMBER, minimum: undefined, exclusiveMinimum: 0 }
    check([
      // Read: every number taken before is still taken (and 0.5 now too): no break.
      { place: 'requestNumber', from: NUMBER, to: lower, expected: [] },
      // Written: 0.5 may now be sent to clients that expect at least 1.
      { place: 'responseNumber', from: NUMBER, to: lower, expected: ['remove minimum'] },
      { place: 'payloadNumber', from: NUMBER, to: lower, expected: ['remove minimum'] },
      // The other way round, 1 itself is refused, or no longer sent.
      { place: 'requestNumber', from: lower, to: { ...NUMBER, minimum: 1 }, expected: ['add minimum'] },
      { place: 'responseNumber', from: lower, to: { ...NUMBER, minimum: 1 }, expected: [] },
      {
        place: 'requestNumber',
        from: NUMBER,
        to: { ...NUMBER, minimum: undefined, exclusiveMinimum: 1 },
        expected: ['add exclusiveMinimum'],
      },
      {
        place: 'requestNumber',
        from: { ...NUMBER, maximum: undefined, exclusiveMaximum: 101 },
        to: { ...NUMBER, maximum: 100, exclusiveMaximum: undefined },
        expected: ['add maximum'],
      },
    ])
  })

  it('passes the integer restatements against the baseline and the last release, with the recorded decisions', () => {
    const document = structuredClone(current)
    for (const quantity of [
      schemas(document).NewOrder.properties.quantity,
      schemas(document).Order.properties.quantity,
    ]) {
      delete quantity.minimum
      delete quantity.maximum
      Object.assign(quantity, { exclusiveMinimum: 0, exclusiveMaximum: 101 })
    }
    const petId = document.paths['/pets/{petId}'].get.parameters[0].schema
    delete petId.minimum
    petId.exclusiveMinimum = 0
    const accepted = readAcceptances()
    for (const reference of [read(BASELINE), read(lastRelease())])
      assert.deepEqual(breakingChanges(reference, document, accepted), [])
  })

  it('covers a new bound by a decision only for the value decided (to), as other replaced values', () => {
    const decided = (action: 'add' | 'replace', keyword: string, to: unknown[]) => [
      { action, path: `${PLACES.requestNumber.path}/${keyword}`, to, reason: 'a decision for this test' },
    ]
    const judge = (from: Json, to: Json, accepted: ReturnType<typeof decided>) =>
      breakingChanges(withKeywords('requestNumber', from), withKeywords('requestNumber', to), accepted).map(
        ({ action, path, value }) => ({ action, path: path.slice(PLACES.requestNumber.path.length + 1), value }),
      )
    const multipleOf = decided('replace', 'multipleOf', [4])
    assert.deepEqual(judge({ multipleOf: 2 }, { multipleOf: 4 }, multipleOf), [])
    assert.deepEqual(judge({ multipleOf: 2 }, { multipleOf: 8 }, multipleOf), [
      { action: 'replace', path: 'multipleOf', value: 8 },
    ])
    const exclusive = decided('add', 'exclusiveMinimum', [1])
    assert.deepEqual(judge({}, { minimum: undefined, exclusiveMinimum: 1 }, exclusive), [])
    assert.deepEqual(judge({}, { minimum: undefined, exclusiveMinimum: 2 }, exclusive), [
      { action: 'add', path: 'exclusiveMinimum', value: 2 },
    ])
    const unique = [
      { action: 'replace' as const, path: `${PLACES.requestArray.path}/uniqueItems`, to: [true], reason: 'a decision' },
    ]
    assert.deepEqual(judged('requestArray', { uniqueItems: false }, { uniqueItems: true }, unique), [])
    const contains = [
      { action: 'add' as const, path: `${PLACES.requestArray.path}/minContains`, to: [2], reason: 'a decision' },
    ]
    assert.deepEqual(judged('requestArray', CONTAINS, { ...CONTAINS, minContains: 2 }, contains), [])
    assert.deepEqual(judged('requestArray', CONTAINS, { ...CONTAINS, minContains: 3 }, contains), ['add minContains'])
  })
})
