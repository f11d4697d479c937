// What client generators and contract testers need from the document: named schemas, responses and
// headers, each defined once and referenced; the 403 of each operation naming its own scope; an example for
// every parameter, request body, response and header that validates against its schema; and the service still
// sending exactly the documented properties although response schemas are open.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import { Ajv } from 'ajv'
import { ErrorSchema } from '../../src/http/errors/error.schema.js'
import { EventSchema } from '../../src/event-document.js'
import { OrderSchema } from '../../src/orders/order.schema.js'
import { PetSchema } from '../../src/pets/pet.schema.js'
import { WebhookSchema, WebhookWithSecretSchema } from '../../src/webhooks/endpoints/webhook.schema.js'
import { dereference, type JsonSchema, type OpenApiDocument } from '../helpers/fuzz-document.js'
import { addOracleFormats } from '../helpers/fuzz-oracle.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { SAMPLE_ATTEMPT, SAMPLE_DELIVERY, SAMPLE_SECRET, SAMPLE_WEBHOOK } from '../helpers/webhooks.js'
import { DeliverySchema } from '../../src/webhooks/endpoints/webhook-delivery.schema.js'

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

const SCHEMAS = [
  'AttemptOutcome',
  'Categories',
  'Category',
  'CategoryEventData',
  'DeliveryAttempt',
  'DeliveryStatus',
  'Error',
  'ErrorDetail',
  'Event',
  'EventType',
  'Events',
  'NewCategory',
  'NewOrder',
  'NewPet',
  'NewWebhook',
  'Order',
  'OrderEventData',
  'OrderStatus',
  'Orders',
  'Pet',
  'PetEventData',
  'PetPatch',
  'PetStatus',
  'Pets',
  'Webhook',
  'WebhookDeliveries',
  'WebhookDelivery',
  'WebhookPatch',
  'WebhookStatus',
  'WebhookWithSecret',
  'Webhooks',
]

/** Every `$ref` in `node`, with where it is. */
function references(node: unknown, at = '#', found: [string, string][] = []): [string, string][] {
  if (Array.isArray(node)) node.forEach((item, index) => references(item, `${at}/${index}`, found))
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push([at, value])
      else references(value, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, found)
    }
  }
  return found
}

describe('the OpenAPI document for generators and contract tools', () => {
  let server: TestServer
  let raw: OpenApiDocument & {
    components: { schemas: Record<string, Json>; responses: Record<string, Json>; headers: Record<string, Json> }
  }
  let resolved: OpenApiDocument
  const ajv = addOracleFormats(new Ajv({ strict: false, allErrors: true }))

  before(async () => {
    server = await startTestServer()
    raw = (await (await server.request('/v1/openapi.json', { auth: false })).json()) as typeof raw
    resolved = dereference(raw)
  })
  after(() => server.close())

  const operations = () =>
    Object.entries(raw.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => !method.startsWith('x-'))
        .map(([method, operation]) => ({ path, method, operation: operation as Json })),
    )

  it('names the schemas of the specification and of every resource added since, under components.schemas', () => {
    assert.deepEqual(Object.keys(raw.components.schemas), SCHEMAS)
  })

  it('defines the Error body once: every error response refers to it', () => {
    const errorShapes = JSON.stringify(raw).split('"enum":["invalid_request"').length - 1
    assert.equal(errorShapes, 1, 'the list of error codes appears once')
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (Number(status) < 400) continue
        const ref = (response as { $ref?: string }).$ref
        const shared =
          ref === undefined ? (response as Json) : raw.components.responses[ref.replace('#/components/responses/', '')]
        assert.ok(shared, `${method} ${path} ${status}`)
        assert.deepEqual(
          (shared.content as Json)['application/json'],
          {
            schema: { $ref: '#/components/schemas/Error' },
            example: ((shared.content as Json)['application/json'] as Json).example,
          },
          `${method} ${path} ${status}`,
        )
      }
    }
  })

  it('refers to shared responses and headers, and every component is used', () => {
    const used = new Set(
      references({
        paths: raw.paths,
        components: { responses: raw.components.responses, schemas: raw.components.schemas },
      }).map(([, ref]) => ref),
    )
    for (const kind of ['schemas', 'responses', 'headers'] as const) {
      for (const name of Object.keys(raw.components[kind]))
        assert.ok(used.has(`#/components/${kind}/${name}`), `${kind}/${name} is referenced`)
    }
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        for (const [header, value] of Object.entries(((response as Json).headers ?? {}) as Json)) {
          assert.equal(typeof (value as Json).$ref, 'string', `${method} ${path} ${status} ${header} is a reference`)
        }
        if (isObject((response as Json).content)) {
          for (const [mediaType, media] of Object.entries((response as Json).content as Json)) {
            // An event stream's body is text, not a JSON schema worth a name.
            if (mediaType === 'text/event-stream') continue
            assert.equal(
              typeof ((media as Json).schema as Json).$ref,
              'string',
              `${method} ${path} ${status}: the body refers to a named schema`,
            )
          }
        }
      }
    }
  })

  it('names in each 403 the scope its operation requires', () => {
    for (const { path, method, operation } of operations()) {
      const scope = operation['x-required-scope'] as string
      const forbidden = ((resolved.paths[path] as Json)[method] as Json).responses as Record<string, Json>
      const response = forbidden['403'] as {
        description: string
        content: Record<string, { example: { message: string } }>
      }
      assert.ok(
        response.description.includes(`\`${scope}\``) && response.description.includes(`scope="${scope}"`),
        `${method} ${path}: ${response.description}`,
      )
      assert.equal(
        response.content['application/json']?.example.message,
        `This API key does not have the scope ${scope}, which this operation requires.`,
      )
    }
  })

  it('states that requests are closed and responses open to additive change, and keeps them so', () => {
    assert.match(
      String((raw.info as Json).description),
      /Requests are closed[^]*Responses are\nopen to additive change/,
    )
    for (const name of ['NewPet', 'PetPatch', 'NewOrder', 'NewWebhook', 'WebhookPatch'])
      assert.equal(raw.components.schemas[name]?.additionalProperties, false, name)
    assert.equal(JSON.stringify(raw.components.responses).includes('additionalProperties'), false)
    for (const name of [
      'Pet',
      'Pets',
      'Order',
      'Orders',
      'Event',
      'Events',
      'PetEventData',
      'OrderEventData',
      'Error',
      'ErrorDetail',
      'Webhook',
      'WebhookWithSecret',
      'Webhooks',
      'WebhookDelivery',
      'WebhookDeliveries',
      'DeliveryAttempt',
    ]) {
      assert.equal(JSON.stringify(raw.components.schemas[name]).includes('additionalProperties'), false, name)
    }
  })

  it('states the pet name rule in words and as x-unicode-pattern, with no \\p{…} pattern', () => {
    assert.equal(/"pattern":"[^"]*\\\\p\{/.test(JSON.stringify(raw)), false)
    for (const name of ['NewPet', 'PetPatch', 'Pet']) {
      const property = (raw.components.schemas[name]?.properties as Record<string, Json>).name
      assert.equal(property?.pattern, undefined)
      assert.match(String(property?.['x-unicode-pattern']), /\\p\{Cc\}/)
      assert.match(String(property?.description), /at least one of them visible/)
    }
  })

  describe('examples', () => {
    const problems: string[] = []
    function validate(where: string, schema: unknown, example: unknown): void {
      if (!isObject(schema)) return
      const check = ajv.compile(schema)
      if (!check(example)) problems.push(`${where}: ${JSON.stringify(example)}: ${ajv.errorsText(check.errors)}`)
      const unicode = schema['x-unicode-pattern']
      if (typeof unicode === 'string' && typeof example === 'string' && !new RegExp(unicode, 'u').test(example))
        problems.push(`${where}: breaks x-unicode-pattern`)
    }

    it('has one for every parameter, request body, response body and header, each valid against its schema', () => {
      for (const [path, item] of Object.entries(resolved.paths)) {
        for (const [method, operationValue] of Object.entries(item)) {
          if (method.startsWith('x-')) continue
          const operation = operationValue as Json
          const where = `${method} ${path}`
          for (const parameter of (operation.parameters ?? []) as Json[]) {
            assert.ok('example' in parameter, `${where} parameter ${String(parameter.name)} has an example`)
            validate(`${where} parameter ${String(parameter.name)}`, parameter.schema, parameter.example)
          }
          for (const [mediaType, media] of Object.entries(
            ((operation.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>,
          )) {
            assert.ok('example' in media, `${where} request ${mediaType} has an example`)
            validate(`${where} request ${mediaType}`, media.schema, media.example)
          }
          for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
            for (const [mediaType, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
              assert.ok('example' in media, `${where} ${status} ${mediaType} has an example`)
              validate(`${where} ${status} ${mediaType}`, media.schema, media.example)
            }
            for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
              assert.ok('example' in header, `${where} ${status} header ${name} has an example`)
              validate(`${where} ${status} header ${name}`, header.schema, header.example)
            }
          }
        }
      }
      assert.deepEqual(problems, [])
    })

    it('has valid examples in the named schemas, down to their properties', () => {
      const walk = (where: string, schema: unknown): void => {
        if (Array.isArray(schema)) schema.forEach((item, index) => walk(`${where}/${index}`, item))
        if (!isObject(schema)) return
        for (const example of (schema.examples ?? []) as unknown[]) validate(where, schema, example)
        for (const [key, value] of Object.entries(schema)) if (key !== 'examples') walk(`${where}/${key}`, value)
      }
      walk('#/components/schemas', dereference(raw).components.schemas)
      assert.deepEqual(problems, [])
    })

    it("shows each order operation's answer in the state it ends in, complete exactly when completed", () => {
      const example = (path: string, method: string, status: string) =>
        (((resolved.paths[path] as Json)[method] as Json).responses as Record<string, Json>)[status]?.content as
          Record<string, Json> | undefined
      const orders = {
        placeOrder: example('/store/orders', 'post', '201')?.['application/json']?.example,
        cancelOrder: example('/store/orders/{orderId}', 'delete', '200')?.['application/json']?.example,
        completeOrder: example('/store/orders/{orderId}/complete', 'post', '200')?.['application/json']?.example,
      }
      assert.deepEqual(
        Object.fromEntries(
          Object.entries(orders).map(([operation, order]) => [
            operation,
            [(order as Json).status, (order as Json).complete],
          ]),
        ),
        { placeOrder: ['placed', false], cancelOrder: ['cancelled', false], completeOrder: ['completed', true] },
      )
    })

    it('can fail: an example that breaks its schema is reported', () => {
      const before = problems.length
      validate('probe', { type: 'integer', minimum: 1 }, 0)
      assert.equal(problems.length, before + 1)
      problems.length = before
    })
  })

  it('sends exactly the documented properties although the response schemas are open (the serialiser drops \
the rest)', () => {
    const serializerFor = SerializerSelector()(undefined, undefined)
    const pet = { id: 12, name: 'Rex', categoryId: 3, status: 'available' }
    const order = { id: 7, petId: 12, quantity: 1, shipDate: null, complete: false, status: 'placed' }
    const webhook = { ...SAMPLE_WEBHOOK, types: null }
    const secret = SAMPLE_SECRET
    const attempt = SAMPLE_ATTEMPT
    const delivery = SAMPLE_DELIVERY
    const cases: [object, unknown, unknown][] = [
      [PetSchema, { ...pet, secret: 'x' }, pet],
      [OrderSchema, { ...order, internalNote: 'x' }, order],
      // The secret is shown only where the schema names it: a Webhook never carries it.
      [WebhookSchema, { ...webhook, secret, leaseToken: 'x' }, webhook],
      [WebhookWithSecretSchema, { ...webhook, secret, secretKeyId: 2 }, { ...webhook, secret }],
      [DeliverySchema, { ...delivery, leaseToken: 'x', attempts: [{ ...attempt, leaseToken: 'x' }] }, delivery],
      [
        EventSchema,
        {
          id: 1,
          type: 'pet.created',
          timestamp: '2026-05-01T08:00:00.000Z',
          data: { pet: { ...pet, version: 3 }, extra: 1 },
          debug: true,
        },
        { id: 1, type: 'pet.created', timestamp: '2026-05-01T08:00:00.000Z', data: { pet } },
      ],
      [
        ErrorSchema,
        { code: 'not_found', message: 'No pet has id 12.', status: 404, stack: 'at …' },
        { code: 'not_found', message: 'No pet has id 12.', status: 404 },
      ],
    ]
    for (const [schema, value, expected] of cases) {
      const serialise = serializerFor({ schema, method: 'GET', url: '/', httpStatus: '200' } as never)
      assert.deepEqual(JSON.parse(serialise(value)), expected)
    }
  })

  it('keeps the first two branches of Event.data as in 1.0.0 but for additionalProperties, the name pattern and a \
documented length (the breaking-change gate accepts a false report there)', () => {
    const baseline = dereference(JSON.parse(readFileSync('openapi/baseline-1.0.0.json', 'utf8')) as OpenApiDocument)
    const strip = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(strip)
      if (!isObject(node)) return node
      return Object.fromEntries(
        Object.entries(node)
          .filter(
            ([key]) =>
              ![
                'additionalProperties',
                'description',
                'examples',
                'pattern',
                'x-unicode-pattern',
                'maxLength',
              ].includes(key),
          )
          .map(([key, value]) => [key, strip(value)]),
      )
    }
    const branches = (document: OpenApiDocument) => {
      const items = (
        (((document.paths['/events'] as Json).get as Json).responses as Json)['200'] as {
          content: Record<string, { schema: JsonSchema }>
        }
      ).content['application/json']?.schema.items
      return strip((items?.properties as Record<string, JsonSchema>).data?.anyOf)
    }
    // The third branch, {category}, came with category records.
    const current = branches(resolved)
    assert.ok(Array.isArray(current))
    assert.deepEqual(current.slice(0, 2), branches(baseline))
  })
})
