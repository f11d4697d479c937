// The OpenAPI document served at /v1/openapi.json: its contract items asserted exactly, and real responses of the
// running service checked against the schemas the document gives for their status.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Ajv, type ValidateFunction } from 'ajv'
import { ENTITY_TAG_LIST_PATTERN } from '../../src/http/entity-tag.js'
import { EVENT_TYPES } from '../../src/events/event.schema.js'
import { ERROR_CODES } from '../../src/http/errors/errors.js'
import { dereference } from '../helpers/fuzz-document.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { NO_NETWORK, SAMPLE_ATTEMPT, SAMPLE_DELIVERY, SAMPLE_SECRET, SAMPLE_WEBHOOK } from '../helpers/webhooks.js'

interface Schema {
  [key: string]: unknown
}
interface MediaType {
  schema?: Schema
}
interface Response {
  description?: string
  content?: Record<string, MediaType>
  headers?: Record<string, unknown>
}
interface Operation {
  operationId?: string
  summary?: string
  description?: string
  'x-stability'?: string
  'x-required-scope'?: string
  tags?: string[]
  deprecated?: boolean
  'x-deprecated-sunset'?: string
  security?: unknown
  parameters?: { in: string; name: string; required?: boolean; schema?: Schema }[]
  requestBody?: { required?: boolean; content?: Record<string, MediaType> }
  responses: Record<string, Response>
}
interface OpenApiDocument {
  openapi: string
  info: { title: string; version: string; description: string }
  servers: { url: string; description?: string }[]
  tags: { name: string; description?: string }[]
  paths: Record<string, Record<string, Operation>>
  components: { securitySchemes: Record<string, Record<string, unknown>> }
  security: Record<string, string[]>[]
}

/** The schema without its annotations (description, examples), which may differ between uses of one shape. */
function withoutDescription(schema: Schema): Schema {
  const copy = { ...schema }
  delete copy.description
  delete copy.examples
  return copy
}

function withoutDescriptions(properties: Record<string, Schema>): Record<string, Schema> {
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, withoutDescription(schema)]))
}

const ERROR_CODE_NAMES = Object.keys(ERROR_CODES)

const EXPECTED_OPERATIONS = {
  listPets: {
    path: '/pets',
    method: 'get',
    tag: 'Pets',
    beta: false,
    statuses: ['200', '400', '401', '403', '405', '408', '429', '431', '500', '503'],
    scope: 'pets:read',
  },
  createPet: {
    path: '/pets',
    method: 'post',
    tag: 'Pets',
    beta: false,
    statuses: ['201', '400', '401', '403', '405', '408', '409', '413', '415', '422', '429', '431', '500', '503'],
    scope: 'pets:write',
  },
  getPet: {
    path: '/pets/{petId}',
    method: 'get',
    tag: 'Pets',
    beta: false,
    statuses: ['200', '304', '400', '401', '403', '404', '405', '408', '412', '429', '431', '500', '503'],
    scope: 'pets:read',
  },
  updatePet: {
    path: '/pets/{petId}',
    method: 'patch',
    tag: 'Pets',
    beta: true,
    statuses: [
      '200',
      '400',
      '401',
      '403',
      '404',
      '405',
      '408',
      '409',
      '412',
      '413',
      '415',
      '422',
      '429',
      '431',
      '500',
      '503',
    ],
    scope: 'pets:write',
  },
  deletePet: {
    path: '/pets/{petId}',
    method: 'delete',
    tag: 'Pets',
    beta: true,
    statuses: ['204', '400', '401', '403', '404', '405', '408', '409', '412', '413', '422', '429', '431', '500', '503'],
    scope: 'pets:write',
  },
  listOrders: {
    path: '/store/orders',
    method: 'get',
    tag: 'Store',
    beta: false,
    statuses: ['200', '400', '401', '403', '405', '408', '429', '431', '500', '503'],
    scope: 'orders:read',
  },
  placeOrder: {
    path: '/store/orders',
    method: 'post',
    tag: 'Store',
    beta: true,
    statuses: ['201', '400', '401', '403', '404', '405', '408', '409', '413', '415', '422', '429', '431', '500', '503'],
    scope: 'orders:write',
  },
  getOrder: {
    path: '/store/orders/{orderId}',
    method: 'get',
    tag: 'Store',
    beta: true,
    statuses: ['200', '400', '401', '403', '404', '405', '408', '429', '431', '500', '503'],
    scope: 'orders:read',
  },
  cancelOrder: {
    path: '/store/orders/{orderId}',
    method: 'delete',
    tag: 'Store',
    beta: true,
    statuses: ['200', '400', '401', '403', '404', '405', '408', '409', '413', '422', '429', '431', '500', '503'],
    scope: 'orders:write',
  },
  completeOrder: {
    path: '/store/orders/{orderId}/complete',
    method: 'post',
    tag: 'Store',
    beta: true,
    statuses: ['200', '400', '401', '403', '404', '405', '408', '409', '413', '422', '429', '431', '500', '503'],
    scope: 'orders:write',
  },
  listEvents: {
    path: '/events',
    method: 'get',
    tag: 'Events',
    beta: true,
    statuses: ['200', '400', '401', '403', '405', '408', '410', '429', '431', '500', '503'],
    scope: 'events:read',
  },
  streamEvents: {
    path: '/events/stream',
    method: 'get',
    tag: 'Events',
    beta: true,
    statuses: ['200', '400', '401', '403', '405', '408', '410', '429', '431', '500', '503'],
    scope: 'events:read',
  },
  createWebhook: {
    path: '/webhooks',
    method: 'post',
    tag: 'Webhooks',
    beta: true,
    statuses: ['201', '400', '401', '403', '405', '408', '409', '413', '415', '422', '429', '431', '500', '503'],
    scope: 'webhooks:manage',
  },
  listWebhooks: {
    path: '/webhooks',
    method: 'get',
    tag: 'Webhooks',
    beta: true,
    statuses: ['200', '400', '401', '403', '405', '408', '429', '431', '500', '503'],
    scope: 'webhooks:manage',
  },
  getWebhook: {
    path: '/webhooks/{webhookId}',
    method: 'get',
    tag: 'Webhooks',
    beta: true,
    statuses: ['200', '400', '401', '403', '404', '405', '408', '429', '431', '500', '503'],
    scope: 'webhooks:manage',
  },
  updateWebhook: {
    path: '/webhooks/{webhookId}',
    method: 'patch',
    tag: 'Webhooks',
    beta: true,
    statuses: ['200', '400', '401', '403', '404', '405', '408', '409', '413', '415', '422', '429', '431', '500', '503'],
    scope: 'webhooks:manage',
  },
  deleteWebhook: {
    path: '/webhooks/{webhookId}',
    method: 'delete',
    tag: 'Webhooks',
    beta: true,
    statuses: ['204', '400', '401', '403', '404', '405', '408', '409', '413', '422', '429', '431', '500', '503'],
    scope: 'webhooks:manage',
  },
  rotateWebhookSecret: {
    path: '/webhooks/{webhookId}/rotate-secret',
    method: 'post',
    tag: 'Webhooks',
    beta: true,
    statuses: ['200', '400', '401', '403', '404', '405', '408', '409', '413', '422', '429', '431', '500', '503'],
    scope: 'webhooks:manage',
  },
  listWebhookDeliveries: {
    path: '/webhooks/{webhookId}/deliveries',
    method: 'get',
    tag: 'Webhooks',
    beta: true,
    statuses: ['200', '400', '401', '403', '404', '405', '408', '429', '431', '500', '503'],
    scope: 'webhooks:manage',
  },
  retryWebhookDelivery: {
    path: '/webhooks/{webhookId}/deliveries/{deliveryId}/retry',
    method: 'post',
    tag: 'Webhooks',
    beta: true,
    statuses: ['202', '400', '401', '403', '404', '405', '408', '409', '413', '422', '429', '431', '500', '503'],
    scope: 'webhooks:manage',
  },
} as const
type OperationName = keyof typeof EXPECTED_OPERATIONS

function createAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true })
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) })
  ajv.addFormat('int32', {
    type: 'number',
    validate: (value: number) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31,
  })
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i)
  return ajv
}

/** The production and staging addresses, configured as an operator would. */
const SERVERS_ENV = {
  PRODUCTION_BASE_URL: 'https://petstore.example.com/v1',
  STAGING_BASE_URL: 'https://staging.petstore.example.com/v1',
}
const PUBLISHED_SERVERS = [
  { url: 'https://petstore.example.com/v1', description: 'Production', 'x-internal': false },
  { url: 'https://staging.petstore.example.com/v1', description: 'Staging', 'x-internal': false },
]
const INSTANCE =
  'This instance: the address this document was fetched from, for trying the API out. Clients should use the ' +
  'Production or Staging server.'

/** The headers every response under /v1 declares (and carries). */
const EVERY_RESPONSE = [
  'RateLimit-Policy',
  'RateLimit',
  'Access-Control-Allow-Origin',
  'Access-Control-Expose-Headers',
  'X-Request-Id',
]

describe('GET /v1/openapi.json', () => {
  let server: TestServer
  /** The document with its references resolved: what each operation says, wherever it is written. */
  let document: OpenApiDocument
  /** The document as served. */
  let raw: unknown
  const ajv = createAjv()

  before(async () => {
    // The webhook checks register a host out there: nothing may ever be sent to it.
    server = await startTestServer({ env: SERVERS_ENV, webhookNetwork: NO_NETWORK })
    const response = await server.request('/v1/openapi.json', { auth: false })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
    raw = await response.json()
    document = dereference(raw as OpenApiDocument)
  })
  after(() => server.close())

  function operation(name: OperationName): Operation {
    const { path, method } = EXPECTED_OPERATIONS[name]
    const found = document.paths[path]?.[method]
    assert.ok(found, `${method.toUpperCase()} ${path} is documented`)
    return found
  }

  function responseSchema(name: OperationName, status: string): Schema {
    const schema = operation(name).responses[status]?.content?.['application/json']?.schema
    assert.ok(schema, `${name} ${status} has an application/json schema`)
    return schema
  }

  function validatorFor(name: OperationName, status: string): ValidateFunction {
    return ajv.compile(responseSchema(name, status))
  }

  function assertValid(validate: ValidateFunction, body: unknown): void {
    assert.equal(
      validate(body),
      true,
      `body ${JSON.stringify(body)} breaks the documented schema: ${ajv.errorsText(validate.errors)}`,
    )
  }

  it('is OpenAPI 3.1.0 for version 1.1.0 of the interface', () => {
    assert.equal(document.openapi, '3.1.0')
    assert.equal(document.info.version, '1.1.0')
    assert.equal(document.info.title, 'Petstore API')
  })

  it('lists the configured production and staging servers, then the running instance last (so generated clients take \
production)', () => {
    assert.deepEqual(document.servers, [
      ...PUBLISHED_SERVERS,
      { url: `${server.baseUrl}/v1`, description: INSTANCE, 'x-internal': true },
    ])
  })

  it('documents exactly the fourteen API paths, relative to the servers, and no hidden route', () => {
    // Besides its operations, each path names the 405 its other methods get.
    for (const item of Object.values(document.paths))
      assert.equal(
        (item['x-other-methods'] as Response | undefined)?.description?.startsWith(
          'The path exists but does not support this method',
        ),
        true,
      )
    for (const item of Object.values(document.paths)) delete item['x-other-methods']
    assert.deepEqual(Object.keys(document.paths).sort(), [
      '/categories',
      '/categories/{categoryId}',
      '/events',
      '/events/stream',
      '/pets',
      '/pets/{petId}',
      '/store/orders',
      '/store/orders/{orderId}',
      '/store/orders/{orderId}/complete',
      '/webhooks',
      '/webhooks/{webhookId}',
      '/webhooks/{webhookId}/deliveries',
      '/webhooks/{webhookId}/deliveries/{deliveryId}/retry',
      '/webhooks/{webhookId}/rotate-secret',
    ])
    assert.deepEqual(Object.keys(document.paths['/webhooks'] ?? {}).sort(), ['get', 'post'])
    assert.deepEqual(Object.keys(document.paths['/webhooks/{webhookId}'] ?? {}).sort(), ['delete', 'get', 'patch'])
    assert.deepEqual(Object.keys(document.paths['/events'] ?? {}), ['get'])
    assert.deepEqual(Object.keys(document.paths['/events/stream'] ?? {}), ['get'])
    // The 405 catch-all routes must not add methods to the documented paths.
    assert.deepEqual(Object.keys(document.paths['/pets'] ?? {}).sort(), ['get', 'post'])
    assert.deepEqual(Object.keys(document.paths['/pets/{petId}'] ?? {}).sort(), ['delete', 'get', 'patch'])
    assert.deepEqual(Object.keys(document.paths['/store/orders'] ?? {}).sort(), ['get', 'post'])
    assert.deepEqual(Object.keys(document.paths['/store/orders/{orderId}'] ?? {}).sort(), ['delete', 'get'])
    assert.deepEqual(Object.keys(document.paths['/store/orders/{orderId}/complete'] ?? {}), ['post'])
  })

  it('names the twenty operations, the pet ones tagged Pets, the order ones Store, the event ones Events and the \
webhook ones Webhooks', () => {
    for (const [name, expected] of Object.entries(EXPECTED_OPERATIONS) as [
      OperationName,
      (typeof EXPECTED_OPERATIONS)[OperationName],
    ][]) {
      assert.equal(operation(name).operationId, name)
      assert.deepEqual(operation(name).tags, [expected.tag], name)
      assert.ok(operation(name).summary && operation(name).description, `${name} has a summary and a description`)
    }
  })

  it('marks exactly updatePet, deletePet, the order, event and webhook operations but listOrders x-stability: beta, \
visibly in their summary too', () => {
    for (const [name, expected] of Object.entries(EXPECTED_OPERATIONS) as [
      OperationName,
      (typeof EXPECTED_OPERATIONS)[OperationName],
    ][]) {
      assert.equal(operation(name)['x-stability'], expected.beta ? 'beta' : undefined, name)
      assert.equal(operation(name).summary?.startsWith('[beta] '), expected.beta, name)
    }
  })

  it('states the pet state machine in the document and in the order operations', () => {
    for (const row of [
      '| place | `POST /store/orders` | `available` → `pending` | new, `placed` |',
      '| complete | `POST /store/orders/{orderId}/complete` | `pending` → `sold` | `placed` → `completed` ' +
        '(`complete: true`) |',
      '| cancel | `DELETE /store/orders/{orderId}` | `pending` → `available` | `placed` → `cancelled` |',
    ])
      assert.ok(document.info.description.includes(row), row)
    assert.match(operation('placeOrder').description ?? '', /`available` animal and makes it `pending`.*409/s)
    assert.match(operation('completeOrder').description ?? '', /marks its animal `sold`.*409/s)
    assert.match(operation('cancelOrder').description ?? '', /returns its animal to `available`.*409/s)
  })

  it('names under idempotent retries exactly the operations that take an Idempotency-Key', () => {
    const taking = Object.values(document.paths)
      .flatMap((item) => Object.values(item ?? {}))
      .filter((found): found is Operation => typeof found === 'object' && found !== null && 'operationId' in found)
      .filter((found) =>
        (found.parameters ?? []).some(
          (parameter) => 'name' in parameter && parameter.name === 'Idempotency-Key' && parameter.in === 'header',
        ),
      )
      .map((found) => found.operationId)
    const section = /#### Idempotent retries\n\n(.*?)\n\n/s.exec(document.info.description)?.[1] ?? ''
    const list = section.slice(0, section.indexOf(' take an optional'))
    const named = [...list.matchAll(/`([a-z][A-Za-z]+)`/g)].map((match) => match[1])
    assert.deepEqual(named.toSorted(), taking.toSorted())
    assert.match(section, /`If-Match` and `If-None-Match`\)/)
  })

  it('declares the tags Pets, Categories, Store, Events and Webhooks globally', () => {
    assert.deepEqual(
      document.tags.map((tag) => tag.name),
      ['Pets', 'Categories', 'Store', 'Events', 'Webhooks'],
    )
    for (const tag of document.tags) assert.ok(tag.description, `tag ${tag.name} has a description`)
  })

  it('marks only getPet deprecated, with its sunset date', () => {
    assert.equal(operation('getPet').deprecated, true)
    assert.equal(operation('getPet')['x-deprecated-sunset'], '2030-12-05')
    for (const name of (Object.keys(EXPECTED_OPERATIONS) as OperationName[]).filter(
      (candidate) => candidate !== 'getPet',
    )) {
      assert.equal(operation(name).deprecated, undefined, name)
      assert.equal(operation(name)['x-deprecated-sunset'], undefined, name)
    }
  })

  it('names the scope each operation requires, in x-required-scope and in its description', () => {
    for (const [name, expected] of Object.entries(EXPECTED_OPERATIONS) as [
      OperationName,
      (typeof EXPECTED_OPERATIONS)[OperationName],
    ][]) {
      assert.equal(operation(name)['x-required-scope'], expected.scope, name)
      assert.ok(
        operation(name).description?.endsWith(
          `\n\n**Required scope:** \`${expected.scope}\` (otherwise 403 \`forbidden\`).`,
        ),
        `${name}: ${operation(name).description}`,
      )
    }
    for (const scope of ['pets:read', 'pets:write', 'orders:read', 'orders:write', 'events:read', 'webhooks:manage'])
      assert.ok(document.info.description.includes(`\`${scope}\``), scope)
  })

  it('names under Scopes exactly the operations of each scope, the Webhooks ones as a group', () => {
    const section = /#### Scopes\n\n(.*?)\n\n/s.exec(document.info.description)?.[1] ?? ''
    const listed = Object.fromEntries(
      [...section.matchAll(/`([a-z]+:[a-z]+)` \(([^)]*)\)/g)].map(([, scope = '', names = '']) => [
        scope,
        [...names.matchAll(/`([A-Za-z]+)`/g)].map((match) => match[1]).toSorted(),
      ]),
    )
    const required: Record<string, string[]> = {}
    const operations = Object.values(document.paths)
      .flatMap((item) => Object.values(item ?? {}))
      .filter((found): found is Operation => typeof found === 'object' && found !== null && 'operationId' in found)
    assert.ok(operations.length > 20, `${operations.length} operations`)
    for (const found of operations) {
      const { operationId = '', 'x-required-scope': scope = '', tags = [] } = found
      if (scope === 'webhooks:manage') assert.deepEqual(tags, ['Webhooks'], operationId)
      else required[scope] = [...(required[scope] ?? []), operationId].toSorted()
    }
    assert.deepEqual(listed, { ...required, 'webhooks:manage': ['Webhooks'] })
  })

  it('names every event type under Events', () => {
    const section = /#### Events\n\n(.*?)\n\n/s.exec(document.info.description)?.[1] ?? ''
    const named = section.slice(0, section.indexOf(' is written as an event'))
    assert.deepEqual(
      [...named.matchAll(/`([a-z]+\.[a-z]+)`/g)].map((match) => match[1]),
      [...EVENT_TYPES],
    )
  })

  it('documents the challenge of 401 and 403, and Retry-After and the RateLimit headers of 429', () => {
    for (const name of Object.keys(EXPECTED_OPERATIONS) as OperationName[]) {
      const { responses } = operation(name)
      assert.deepEqual(Object.keys(responses['401']?.headers ?? {}), ['WWW-Authenticate', ...EVERY_RESPONSE], name)
      assert.deepEqual(Object.keys(responses['403']?.headers ?? {}), ['WWW-Authenticate', ...EVERY_RESPONSE], name)
      assert.deepEqual(Object.keys(responses['429']?.headers ?? {}), ['Retry-After', ...EVERY_RESPONSE], name)
    }
  })

  it('requires the bearer scheme globally and no operation overrides it', () => {
    const { bearerAuth, ...others } = document.components.securitySchemes
    assert.deepEqual(others, {})
    assert.ok(bearerAuth)
    assert.equal(bearerAuth.type, 'http')
    assert.equal(bearerAuth.scheme, 'bearer')
    assert.deepEqual(document.security, [{ bearerAuth: [] }])
    for (const name of Object.keys(EXPECTED_OPERATIONS) as OperationName[])
      assert.equal(operation(name).security, undefined, name)
  })

  it('documents the parameters and the request body of the specification', () => {
    // The schemas without their annotations (a named schema's description and examples).
    const parameters = (name: OperationName) =>
      (operation(name).parameters ?? []).map(({ in: location, name: parameter, required, schema }) => {
        return { location, parameter, required, schema: withoutDescription(schema ?? {}) }
      })
    const [limit, status, cursor, categoryId] = parameters('listPets')
    assert.deepEqual(limit, {
      location: 'query',
      parameter: 'limit',
      required: false,
      schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 },
    })
    assert.deepEqual(status, {
      location: 'query',
      parameter: 'status',
      required: false,
      schema: { type: 'string', enum: ['available', 'pending', 'sold'] },
    })
    assert.deepEqual(cursor, {
      location: 'query',
      parameter: 'cursor',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9_-]{2,64}\\.[A-Za-z0-9_-]{22}$' },
    })
    assert.deepEqual(categoryId, {
      location: 'query',
      parameter: 'categoryId',
      required: false,
      schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    })
    assert.equal(parameters('listPets').length, 4)
    const petIdParameter = {
      location: 'path',
      parameter: 'petId',
      required: true,
      schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    }
    const entityTags = { type: 'string', minLength: 1, maxLength: 1024, pattern: ENTITY_TAG_LIST_PATTERN }
    assert.deepEqual(parameters('getPet'), [
      petIdParameter,
      { location: 'header', parameter: 'If-Match', required: false, schema: entityTags },
      { location: 'header', parameter: 'If-None-Match', required: false, schema: entityTags },
    ])
    // Every unsafe operation takes an optional Idempotency-Key header.
    const idempotencyKey = {
      location: 'header',
      parameter: 'Idempotency-Key',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]*$' },
    }
    assert.deepEqual(parameters('createPet'), [idempotencyKey])
    for (const name of ['updatePet', 'deletePet'] as const) {
      assert.deepEqual(
        parameters(name),
        [
          petIdParameter,
          idempotencyKey,
          { location: 'header', parameter: 'If-Match', required: false, schema: entityTags },
        ],
        name,
      )
    }
    assert.equal(operation('deletePet').requestBody, undefined)
    const patch = operation('updatePet').requestBody
    assert.equal(patch?.required, true)
    assert.deepEqual(Object.keys(patch?.content ?? {}), ['application/merge-patch+json', 'application/json'])
    assert.deepEqual(
      patch?.content?.['application/merge-patch+json']?.schema,
      patch?.content?.['application/json']?.schema,
    )
    const petPatch = patch?.content?.['application/json']?.schema
    assert.equal(petPatch?.required, undefined)
    assert.equal(petPatch?.minProperties, 1)
    assert.equal(petPatch?.additionalProperties, false)
    assert.deepEqual(Object.keys(petPatch?.properties ?? {}), ['name', 'categoryId', 'status'])
    assert.deepEqual(parameters('listOrders'), [limit, cursor])
    for (const name of ['getOrder', 'cancelOrder', 'completeOrder'] as const) {
      assert.deepEqual(
        parameters(name),
        [
          {
            location: 'path',
            parameter: 'orderId',
            required: true,
            schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
          },
          ...(name === 'getOrder' ? [] : [idempotencyKey]),
        ],
        name,
      )
      assert.equal(operation(name).requestBody, undefined, name)
    }
    assert.deepEqual(parameters('placeOrder'), [idempotencyKey])
    const orderBody = operation('placeOrder').requestBody
    assert.equal(orderBody?.required, true)
    const newOrder = orderBody?.content?.['application/json']?.schema
    assert.deepEqual(newOrder?.required, ['petId'])
    assert.equal(newOrder?.additionalProperties, false)
    const { petId, quantity, shipDate } = withoutDescriptions(newOrder?.properties as Record<string, Schema>)
    assert.deepEqual(
      { petId, quantity, shipDate },
      {
        petId: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
        // The default as `x-default`: a `default` would make generators require the property.
        quantity: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, 'x-default': 1 },
        shipDate: { type: 'string', format: 'date-time', maxLength: 29 },
      },
    )
    assert.deepEqual(Object.keys(newOrder?.properties ?? {}), ['petId', 'quantity', 'shipDate'])

    const body = operation('createPet').requestBody
    assert.equal(body?.required, true)
    assert.deepEqual(Object.keys(body?.content ?? {}), ['application/json'])
    const newPet = body?.content?.['application/json']?.schema
    assert.equal(newPet?.type, 'object')
    assert.deepEqual(newPet?.required, ['name', 'categoryId'])
    assert.deepEqual(Object.keys(newPet?.properties ?? {}), ['name', 'categoryId', 'status'])
    assert.deepEqual(withoutDescriptions(newPet?.properties as Record<string, Schema>).status, {
      type: 'string',
      enum: ['available', 'pending', 'sold'],
      'x-default': 'available',
    })
    assert.equal(newPet?.additionalProperties, false)
  })

  it("documents each operation's response statuses, each with a description and an application/json schema", () => {
    for (const [name, expected] of Object.entries(EXPECTED_OPERATIONS) as [
      OperationName,
      (typeof EXPECTED_OPERATIONS)[OperationName],
    ][]) {
      const responses = operation(name).responses
      assert.deepEqual(Object.keys(responses), expected.statuses, name)
      for (const status of expected.statuses) {
        assert.ok(responses[status]?.description, `${name} ${status} has a description`)
        if (name === 'streamEvents' && status === '200') {
          assert.deepEqual(Object.keys(responses[status]?.content ?? {}), ['text/event-stream'], `${name} ${status}`)
          continue
        }
        // 204 and 304 have no body, so no content.
        assert.deepEqual(
          Object.keys(responses[status]?.content ?? {}),
          ['204', '304'].includes(status) ? [] : ['application/json'],
          `${name} ${status}`,
        )
        if (['204', '304'].includes(status)) continue
        assert.equal(typeof responseSchema(name, status).type, 'string', `${name} ${status} schema has a type`)
      }
    }
    assert.equal(responseSchema('listPets', '200').type, 'array')
    // The same Pet shape everywhere; only the top-level description (copied from the response's) differs.
    const pet = withoutDescription(responseSchema('getPet', '200'))
    assert.deepEqual(withoutDescription(responseSchema('createPet', '201')), pet)
    assert.deepEqual(withoutDescription(responseSchema('updatePet', '200')), pet)
    assert.deepEqual(withoutDescription(responseSchema('listPets', '200').items as Schema), pet)
    assert.deepEqual(Object.keys(operation('createPet').responses['201']?.headers ?? {}), [
      'Location',
      'ETag',
      'Idempotent-Replayed',
      ...EVERY_RESPONSE,
    ])
    assert.deepEqual(Object.keys(operation('getPet').responses['200']?.headers ?? {}), [
      'ETag',
      'Deprecation',
      'Sunset',
      'Link',
      ...EVERY_RESPONSE,
    ])
    assert.deepEqual(Object.keys(operation('getPet').responses['304']?.headers ?? {}), [
      'ETag',
      'Deprecation',
      'Sunset',
      'Link',
      ...EVERY_RESPONSE,
    ])
    for (const status of ['400', '404'])
      assert.deepEqual(
        Object.keys(operation('getPet').responses[status]?.headers ?? {}),
        ['Deprecation', 'Sunset', 'Link', ...EVERY_RESPONSE],
        status,
      )
    assert.deepEqual(Object.keys(operation('updatePet').responses['200']?.headers ?? {}), [
      'ETag',
      'Idempotent-Replayed',
      ...EVERY_RESPONSE,
    ])
    assert.deepEqual(Object.keys(operation('deletePet').responses['204']?.headers ?? {}), [
      'Idempotent-Replayed',
      ...EVERY_RESPONSE,
    ])
    // A change's own refusals are stored under its Idempotency-Key and replayed with Idempotent-Replayed.
    for (const name of ['updatePet', 'deletePet'] as const) {
      assert.deepEqual(
        Object.keys(operation(name).responses['412']?.headers ?? {}),
        ['ETag', 'Idempotent-Replayed', ...EVERY_RESPONSE],
        name,
      )
      for (const status of ['400', '404'])
        assert.deepEqual(
          Object.keys(operation(name).responses[status]?.headers ?? {}),
          ['Idempotent-Replayed', ...EVERY_RESPONSE],
          `${name} ${status}`,
        )
      // 409 is also idempotency_key_in_flight, with its Retry-After.
      assert.deepEqual(
        Object.keys(operation(name).responses['409']?.headers ?? {}),
        ['Retry-After', 'Idempotent-Replayed', ...EVERY_RESPONSE],
        `${name} 409`,
      )
    }
    // Reads never replay: their refusals do not declare it.
    for (const status of ['400', '404'])
      assert.deepEqual(Object.keys(operation('getOrder').responses[status]?.headers ?? {}), EVERY_RESPONSE, status)
    assert.deepEqual(Object.keys(operation('listPets').responses['200']?.headers ?? {}), ['Link', ...EVERY_RESPONSE])

    const order = withoutDescription(responseSchema('getOrder', '200'))
    for (const [name, status] of [
      ['placeOrder', '201'],
      ['cancelOrder', '200'],
      ['completeOrder', '200'],
    ] as const) {
      assert.deepEqual(withoutDescription(responseSchema(name, status)), order, name)
    }
    assert.deepEqual(withoutDescription(responseSchema('listOrders', '200').items as Schema), order)
    assert.deepEqual(order.required, ['id', 'petId', 'quantity', 'shipDate', 'complete', 'status'])
    // Responses are open to additive change.
    assert.equal(order.additionalProperties, undefined)
    const { shipDate, status } = withoutDescriptions(order.properties as Record<string, Schema>)
    assert.deepEqual(shipDate, { type: ['string', 'null'], format: 'date-time', maxLength: 24 })
    assert.deepEqual(status, { type: 'string', enum: ['placed', 'completed', 'cancelled'] })
    assert.deepEqual(Object.keys(operation('placeOrder').responses['201']?.headers ?? {}), [
      'Location',
      'Idempotent-Replayed',
      ...EVERY_RESPONSE,
    ])
    for (const name of ['cancelOrder', 'completeOrder'] as const)
      assert.deepEqual(
        Object.keys(operation(name).responses['200']?.headers ?? {}),
        ['Idempotent-Replayed', ...EVERY_RESPONSE],
        name,
      )
    assert.deepEqual(Object.keys(operation('listOrders').responses['200']?.headers ?? {}), ['Link', ...EVERY_RESPONSE])
  })

  it('documents every error with the Error body, whose code lists every code the service uses', () => {
    for (const [name, expected] of Object.entries(EXPECTED_OPERATIONS) as [
      OperationName,
      (typeof EXPECTED_OPERATIONS)[OperationName],
    ][]) {
      for (const status of expected.statuses.filter((code) => Number(code) >= 400)) {
        const schema = responseSchema(name, status)
        const properties = schema.properties as Record<string, Schema>
        assert.equal(schema.type, 'object', `${name} ${status}`)
        assert.deepEqual(schema.required, ['code', 'message', 'status'], `${name} ${status}`)
        assert.deepEqual(Object.keys(properties), ['code', 'message', 'status', 'details'], `${name} ${status}`)
        assert.deepEqual(properties.code?.enum, ERROR_CODE_NAMES, `${name} ${status}`)
        for (const code of ERROR_CODE_NAMES) {
          assert.ok(
            String(properties.code?.description).includes(`\`${code}\``),
            `${name} ${status}: code ${code} is explained`,
          )
        }
      }
    }
  })

  it('serves the same document to the interactive reference at /docs/json', async () => {
    const response = await server.request('/docs/json', { auth: false })
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), raw)
  })

  describe('real responses match the documented schema for their status', () => {
    it('has schemas that refuse what the service must not send (so the checks below can fail)', () => {
      assert.equal(validatorFor('listPets', '200')([{ id: 1, name: 'Rex', categoryId: 1 }]), false)
      assert.equal(
        validatorFor('createPet', '201')({ id: '1', name: 'Rex', categoryId: 1, status: 'available' }),
        false,
      )
      assert.equal(validatorFor('getPet', '200')({ id: 1, name: 'Rex', categoryId: 1, status: 'lost' }), false)
      assert.equal(validatorFor('getPet', '404')({ code: 'missing', message: 'No pet.', status: 404 }), false)
      assert.equal(validatorFor('getPet', '404')({ code: 'not_found', message: 'No pet.' }), false)
      const order = { id: 1, petId: 1, quantity: 1, shipDate: null, complete: false, status: 'placed' }
      assert.equal(validatorFor('getOrder', '200')(order), true)
      assert.equal(validatorFor('getOrder', '200')({ ...order, shipDate: 'tomorrow' }), false)
      assert.equal(validatorFor('getOrder', '200')({ ...order, quantity: 0 }), false)
      assert.equal(validatorFor('getOrder', '200')({ ...order, status: 'shipped' }), false)
      assert.equal(validatorFor('listOrders', '200')([{ ...order, complete: undefined }]), false)
      assert.equal(validatorFor('cancelOrder', '409')({ code: 'conflict', message: 'No.', status: 409 }), true)
      const webhook = SAMPLE_WEBHOOK
      const secret = SAMPLE_SECRET
      assert.equal(validatorFor('getWebhook', '200')(webhook), true)
      assert.equal(validatorFor('getWebhook', '200')({ ...webhook, status: 'paused' }), false)
      assert.equal(validatorFor('getWebhook', '200')({ ...webhook, types: ['pet.sold'] }), false)
      assert.equal(validatorFor('createWebhook', '201')({ ...webhook, secret }), true)
      assert.equal(validatorFor('createWebhook', '201')(webhook), false)
      assert.equal(validatorFor('rotateWebhookSecret', '200')({ ...webhook, secret: 'hunter2' }), false)
      const attempt = SAMPLE_ATTEMPT
      const delivery = SAMPLE_DELIVERY
      assert.equal(validatorFor('listWebhookDeliveries', '200')([delivery]), true)
      assert.equal(validatorFor('listWebhookDeliveries', '200')([{ ...delivery, status: 'sent' }]), false)
      assert.equal(
        validatorFor('retryWebhookDelivery', '202')({ ...delivery, attempts: [{ ...attempt, outcome: 'lost' }] }),
        false,
      )
    })

    it('201 from createPet and 200 from listPets', async () => {
      const created = await server.request('/v1/pets', { json: { name: 'Schema', categoryId: 3, status: 'pending' } })
      assert.equal(created.status, 201)
      const pet = await created.json()
      assert.deepEqual(pet, { id: pet.id, name: 'Schema', categoryId: 3, status: 'pending' })
      assertValid(validatorFor('createPet', '201'), pet)

      const listed = await server.request('/v1/pets')
      assert.equal(listed.status, 200)
      const pets = await listed.json()
      assert.deepEqual(pets, [pet])
      assertValid(validatorFor('listPets', '200'), pets)
    })

    it('200 and 412 from updatePet, 304 from getPet, 204 from deletePet', async () => {
      const pet = await (await server.request('/v1/pets', { json: { name: 'Patched', categoryId: 5 } })).json()
      const patch = (body: unknown, ifMatch: string) =>
        server.request(`/v1/pets/${pet.id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/merge-patch+json', 'if-match': ifMatch },
          body: JSON.stringify(body),
        })
      const updated = await patch({ status: 'pending' }, `"${pet.id}.1"`)
      assert.equal(updated.status, 200)
      assert.equal(updated.headers.get('etag'), `"${pet.id}.2"`)
      assertValid(validatorFor('updatePet', '200'), await updated.json())
      const stale = await patch({ name: 'Stale' }, `"${pet.id}.1"`)
      assert.equal(stale.status, 412)
      assertValid(validatorFor('updatePet', '412'), await stale.json())
      const unchanged = await server.request(`/v1/pets/${pet.id}`, { headers: { 'if-none-match': `"${pet.id}.2"` } })
      assert.equal(unchanged.status, 304)
      assert.equal(await unchanged.text(), '')

      const deleted = await server.request(`/v1/pets/${pet.id}`, { method: 'DELETE' })
      assert.equal(deleted.status, 204)
      assert.equal(await deleted.text(), '')
    })

    it('401 without a key', async () => {
      const response = await server.request('/v1/pets', { auth: false })
      assert.equal(response.status, 401)
      const body = await response.json()
      assert.deepEqual(body, {
        code: 'unauthorized',
        message: 'An API key is required: send Authorization: Bearer <key>.',
        status: 401,
      })
      assertValid(validatorFor('listPets', '401'), body)
    })

    it('404 from getPet for an id that does not exist', async () => {
      const response = await server.request('/v1/pets/9007199254740991')
      assert.equal(response.status, 404)
      const body = await response.json()
      assert.deepEqual(body, { code: 'not_found', message: 'No pet has id 9007199254740991.', status: 404 })
      assertValid(validatorFor('getPet', '404'), body)
    })

    it('400 with details from listPets', async () => {
      const response = await server.request('/v1/pets?limit=0')
      assert.equal(response.status, 400)
      const body = await response.json()
      assert.deepEqual(body, {
        code: 'invalid_request',
        message: 'Invalid request: query/limit must be >= 1',
        status: 400,
        details: [{ path: 'query/limit', message: 'must be >= 1' }],
      })
      assertValid(validatorFor('listPets', '400'), body)
    })

    it('every order operation, its 409 and its 404 with details', async () => {
      const pet = await (await server.request('/v1/pets', { json: { name: 'Ordered', categoryId: 4 } })).json()
      const placed = await server.request('/v1/store/orders', {
        json: { petId: pet.id, quantity: 3, shipDate: '2026-05-01T10:00:00+02:00' },
      })
      assert.equal(placed.status, 201)
      const order = await placed.json()
      assert.deepEqual(order, {
        id: order.id,
        petId: pet.id,
        quantity: 3,
        shipDate: '2026-05-01T08:00:00.000Z',
        complete: false,
        status: 'placed',
      })
      assertValid(validatorFor('placeOrder', '201'), order)
      assertValid(validatorFor('getOrder', '200'), await (await server.request(`/v1/store/orders/${order.id}`)).json())
      const completed = await server.request(`/v1/store/orders/${order.id}/complete`, { method: 'POST' })
      assert.equal(completed.status, 200)
      assertValid(validatorFor('completeOrder', '200'), await completed.json())
      const refused = await server.request(`/v1/store/orders/${order.id}`, { method: 'DELETE' })
      assert.equal(refused.status, 409)
      const conflict = await refused.json()
      assert.deepEqual(conflict, {
        code: 'conflict',
        message: `Order ${order.id} is completed; only a placed order can be cancelled.`,
        status: 409,
      })
      assertValid(validatorFor('cancelOrder', '409'), conflict)

      const other = await (await server.request('/v1/pets', { json: { name: 'Returned', categoryId: 4 } })).json()
      const second = await (await server.request('/v1/store/orders', { json: { petId: other.id } })).json()
      const cancelled = await server.request(`/v1/store/orders/${second.id}`, { method: 'DELETE' })
      assert.equal(cancelled.status, 200)
      assertValid(validatorFor('cancelOrder', '200'), await cancelled.json())
      const listed = await (await server.request('/v1/store/orders')).json()
      assert.equal(listed.length, 2)
      assertValid(validatorFor('listOrders', '200'), listed)

      const missing = await server.request('/v1/store/orders', { json: { petId: 987654 } })
      assert.equal(missing.status, 404)
      const notFound = await missing.json()
      assert.deepEqual(notFound, {
        code: 'not_found',
        message: 'No pet has id 987654.',
        status: 404,
        details: [{ path: 'body/petId', message: 'does not exist' }],
      })
      assertValid(validatorFor('placeOrder', '404'), notFound)
    })

    it('every webhook operation, and a delivery with its failed attempt', async () => {
      const created = await server.request('/v1/webhooks', {
        json: { url: 'https://hooks.example.com/schema', types: ['pet.created'], description: 'Schema' },
      })
      assert.equal(created.status, 201)
      const webhook = await created.json()
      assertValid(validatorFor('createWebhook', '201'), webhook)
      assertValid(validatorFor('getWebhook', '200'), await (await server.request(`/v1/webhooks/${webhook.id}`)).json())
      assertValid(validatorFor('listWebhooks', '200'), await (await server.request('/v1/webhooks')).json())
      const patched = await server.request(`/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: { types: null } })
      assertValid(validatorFor('updateWebhook', '200'), await patched.json())
      const rotated = await server.request(`/v1/webhooks/${webhook.id}/rotate-secret`, { method: 'POST' })
      assertValid(validatorFor('rotateWebhookSecret', '200'), await rotated.json())
      assert.equal((await server.request('/v1/pets', { json: { name: 'Delivered', categoryId: 5 } })).status, 201)
      let deliveries: { id: number; attempts: unknown[] }[] = []
      while (deliveries[0]?.attempts.length !== 1)
        deliveries = await (await server.request(`/v1/webhooks/${webhook.id}/deliveries`)).json()
      assertValid(validatorFor('listWebhookDeliveries', '200'), deliveries)
      const [delivery] = deliveries
      const retried = await server.request(`/v1/webhooks/${webhook.id}/deliveries/${delivery?.id}/retry`, {
        method: 'POST',
      })
      if (retried.status === 409) assertValid(validatorFor('retryWebhookDelivery', '409'), await retried.json())
      else assertValid(validatorFor('retryWebhookDelivery', '202'), await retried.json())
      const refused = await server.request('/v1/webhooks', { json: { url: 'http://[::1]/' } })
      assert.equal(refused.status, 400)
      assertValid(validatorFor('createWebhook', '400'), await refused.json())
      assert.equal((await server.request(`/v1/webhooks/${webhook.id}`, { method: 'DELETE' })).status, 204)
    })
  })
})

describe('GET /v1/openapi.json with PUBLIC_BASE_URL set', () => {
  it('names the configured origin, not the Host header, as the running instance (the only server when none is \
configured)', async () => {
    const server = await startTestServer({ env: { PUBLIC_BASE_URL: 'https://pets.internal.example' } })
    try {
      const response = await server.request('/v1/openapi.json', { auth: false })
      assert.equal(response.status, 200)
      const { servers } = (await response.json()) as OpenApiDocument
      assert.deepEqual(servers, [
        {
          url: 'https://pets.internal.example/v1',
          description:
            'This instance, a local or development one (no production or staging server is configured): the ' +
            'address this document was fetched from.',
          'x-internal': true,
        },
      ])
    } finally {
      await server.close()
    }
  })

  it('lists an instance that is the production server once, as Production', async () => {
    const server = await startTestServer({ env: { ...SERVERS_ENV, PUBLIC_BASE_URL: 'https://petstore.example.com' } })
    try {
      const { servers } = (await (await server.request('/v1/openapi.json', { auth: false })).json()) as OpenApiDocument
      assert.deepEqual(servers, PUBLISHED_SERVERS)
    } finally {
      await server.close()
    }
  })
})
