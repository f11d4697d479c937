// An operation that takes no request body (a DELETE, an action on a resource's address) refuses one with the same
// 400 whatever it is: JSON, JSON the service could not read, another media type, a coded body. It never answers
// 415 advising a media type, as if the body would be taken in another one. An empty body is no body.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../../helpers/error-assert.js'
import { addPet } from '../../helpers/orders.js'
import { openRawConnection, type RawResponse } from '../../helpers/raw-http.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

interface Operation {
  operationId: string
  requestBody?: unknown
  responses: Record<string, unknown>
}
type Paths = Record<string, Record<string, Operation>>

const document = JSON.parse(readFileSync('openapi/petstore-v1.json', 'utf8')) as { paths: Paths }
const WRITES = ['post', 'put', 'patch', 'delete']
/** Every operation of the document that takes no body but a method that may carry one, each path id 1. */
const BODILESS = Object.entries(document.paths).flatMap(([path, operations]) =>
  Object.entries(operations)
    .filter(([method, operation]) => WRITES.includes(method) && operation.requestBody === undefined)
    .map(([method, { operationId, responses }]) => ({
      operationId,
      responses,
      method: method.toUpperCase(),
      path: path.replace(/\{\w+\}/g, '1'),
    })),
)

/** Every read of the document, each path id 1. */
const READS = Object.entries(document.paths).flatMap(([path, operations]) =>
  Object.entries(operations)
    .filter(([method]) => method === 'get')
    .map(([, { operationId }]) => ({ operationId, path: path.replace(/\{\w+\}/g, '1') })),
)

const TAKES_NO_BODY = {
  status: 400,
  code: 'invalid_request',
  message: 'Invalid request: this operation takes no request body.',
  details: [{ path: 'body', message: 'must be absent' }],
}

const BODIES: { what: string; headers: Record<string, string>; body: string }[] = [
  { what: 'JSON', headers: { 'content-type': 'application/json' }, body: '{"force":true}' },
  { what: 'JSON it cannot read', headers: { 'content-type': 'application/json' }, body: '{"force":' },
  { what: 'text', headers: { 'content-type': 'text/plain' }, body: 'force' },
  { what: 'a form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'force=true' },
  {
    what: 'gzip-coded JSON',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: '{"force":true}',
  },
  { what: 'JSON in another charset', headers: { 'content-type': 'application/json; charset=latin1' }, body: '{}' },
]

describe('operations that take no request body', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('are the seven the document lists without one', () => {
    assert.deepEqual(BODILESS.map(({ operationId }) => operationId).sort(), [
      'cancelOrder',
      'completeOrder',
      'deleteCategory',
      'deletePet',
      'deleteWebhook',
      'retryWebhookDelivery',
      'rotateWebhookSecret',
    ])
  })

  it('are documented with 413 (a body over the limit) and never 415, which they do not send', () => {
    for (const { operationId, responses } of BODILESS)
      assert.deepEqual([operationId, '413' in responses, '415' in responses], [operationId, true, false])
  })

  for (const { operationId, method, path } of BODILESS)
    it(`${operationId}: 400 for every kind of body, before anything else is done`, async () => {
      for (const { what, headers, body } of BODIES) {
        const response = await server.request(`/v1${path}`, { method, headers, body })
        await assertError(response, TAKES_NO_BODY).catch((error: unknown) => {
          throw new Error(`${what}: ${String(error)}`)
        })
      }
    })

  /** A request fetch will not make (a GET with a body), on a connection of its own. */
  async function raw(head: string, body = ''): Promise<RawResponse> {
    const connection = await openRawConnection(server.baseUrl)
    await connection.write(`${head}\r\nHost: ${new URL(server.baseUrl).host}\r\n\r\n${body}`)
    const response = await connection.nextResponse()
    connection.socket.destroy()
    return response
  }
  const key = `Authorization: Bearer ${TEST_API_KEY}`

  it('every read refuses a body announced by its length or by chunks, unread, after authentication', async () => {
    assert.ok(READS.length >= 10, `${READS.length} reads`)
    await addPet(server)
    for (const { operationId, path } of READS) {
      const sized = await raw(
        `GET /v1${path} HTTP/1.1\r\n${key}\r\nContent-Type: application/json\r\nContent-Length: 2`,
        '{}',
      )
      assert.deepEqual([sized.status, JSON.parse(sized.body)], [400, TAKES_NO_BODY], operationId)
      const chunked = await raw(
        `GET /v1${path} HTTP/1.1\r\n${key}\r\nTransfer-Encoding: chunked`,
        '2\r\n{}\r\n0\r\n\r\n',
      )
      assert.deepEqual([chunked.status, JSON.parse(chunked.body)], [400, TAKES_NO_BODY], operationId)
    }
    const anonymous = await raw('GET /v1/pets HTTP/1.1\r\nContent-Length: 2', '{}')
    assert.equal(anonymous.status, 401)
  })

  it('a read with Content-Length 0 has no body: 200', async () => {
    await addPet(server)
    const response = await raw(`GET /v1/pets?limit=1 HTTP/1.1\r\n${key}\r\nContent-Length: 0`)
    assert.equal(response.status, 200)
    assert.equal((JSON.parse(response.body) as unknown[]).length, 1)
  })

  it('a Content-Length of 0 with leading zeros is no body either: a read answers 200, a DELETE 204', async () => {
    await addPet(server)
    const read = await raw(`GET /v1/pets?limit=1 HTTP/1.1\r\n${key}\r\nContent-Length: 00`)
    assert.equal(read.status, 200)
    assert.equal((JSON.parse(read.body) as unknown[]).length, 1)
    const pet = await addPet(server)
    const deleted = await raw(
      `DELETE /v1/pets/${pet.id} HTTP/1.1\r\n${key}\r\nContent-Type: text/plain\r\nContent-Length: 000`,
    )
    assert.deepEqual([deleted.status, deleted.body], [204, ''])
  })

  // Content-Type values that name no media type at all: Fastify refuses them with 415 before any parser runs.
  const UNREADABLE_MEDIA_TYPES = ['', ';;', '/', 'json', 'application/']

  it('refuse a body labelled with a Content-Type that names no media type with the same 400, never 415', async () => {
    for (const { operationId, method, path } of BODILESS)
      for (const contentType of UNREADABLE_MEDIA_TYPES) {
        const response = await raw(
          `${method} /v1${path} HTTP/1.1\r\n${key}\r\nContent-Type: ${contentType}\r\nContent-Length: 2`,
          '{}',
        )
        assert.deepEqual(
          [response.status, JSON.parse(response.body)],
          [400, TAKES_NO_BODY],
          `${operationId} with Content-Type ${JSON.stringify(contentType)}`,
        )
      }
  })

  it('a path no route takes: 401 without a key, 404 with one, whatever Content-Type its body has', async () => {
    for (const contentType of UNREADABLE_MEDIA_TYPES) {
      const head = (path: string, auth: string) =>
        `POST ${path} HTTP/1.1\r\n${auth}Content-Type: ${contentType}\r\nContent-Length: 2`
      const anonymous = await raw(head('/v1/nowhere', ''), '{}')
      assert.deepEqual(
        [anonymous.status, (JSON.parse(anonymous.body) as { code: string }).code],
        [401, 'unauthorized'],
        `without a key, Content-Type ${JSON.stringify(contentType)}`,
      )
      const known = await raw(head('/v1/nowhere', `${key}\r\n`), '{}')
      assert.deepEqual(
        [known.status, JSON.parse(known.body)],
        [404, { code: 'not_found', message: 'No route POST /v1/nowhere.', status: 404 }],
        `with a key, Content-Type ${JSON.stringify(contentType)}`,
      )
      const outside = await raw(head('/nowhere', ''), '{}')
      assert.deepEqual(
        [outside.status, JSON.parse(outside.body)],
        [404, { code: 'not_found', message: 'No route POST /nowhere.', status: 404 }],
        `outside the API, Content-Type ${JSON.stringify(contentType)}`,
      )
    }
  })

  it('a path no route takes reads no body: a JSON one over the limit is 401 without a key, 404 with one', async () => {
    const body = `{"name":"${'x'.repeat(20 * 1024)}"}`
    const head = (path: string, auth: string) =>
      `POST ${path} HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}`
    const anonymous = await raw(head('/v1/nowhere', ''), body)
    assert.deepEqual([anonymous.status, (JSON.parse(anonymous.body) as { code: string }).code], [401, 'unauthorized'])
    assert.match(anonymous.headers['ratelimit'] ?? '', /^"default";r=\d+;t=\d+$/)
    const known = await raw(head('/v1/nowhere', `${key}\r\n`), body)
    assert.deepEqual(
      [known.status, JSON.parse(known.body)],
      [404, { code: 'not_found', message: 'No route POST /v1/nowhere.', status: 404 }],
    )
    const outside = await raw(head('/nowhere', ''), body)
    assert.deepEqual(
      [outside.status, JSON.parse(outside.body)],
      [404, { code: 'not_found', message: 'No route POST /nowhere.', status: 404 }],
    )
    // An operation without a body still answers a JSON one over the limit 413, as documented.
    const bodiless = await raw(
      `DELETE /v1/pets/1 HTTP/1.1\r\n${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}`,
      body,
    )
    assert.equal(bodiless.status, 413)
  })

  it('an empty chunked body is no body whatever its media type; a chunked one with content is refused', async () => {
    for (const contentType of ['application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
      const pet = await addPet(server)
      const head = `DELETE /v1/pets/${pet.id} HTTP/1.1\r\n${key}\r\nContent-Type: ${contentType}\r\n`
      const refused = await raw(`${head}Transfer-Encoding: chunked`, '5\r\nforce\r\n0\r\n\r\n')
      assert.deepEqual([refused.status, JSON.parse(refused.body)], [400, TAKES_NO_BODY], contentType)
      const deleted = await raw(`${head}Transfer-Encoding: chunked`, '0\r\n\r\n')
      assert.deepEqual([deleted.status, deleted.body], [204, ''], contentType)
    }
  })

  it('an empty body with any media type is no body: the pet is deleted', async () => {
    const pet = await addPet(server)
    const response = await server.request(`/v1/pets/${pet.id}`, {
      method: 'DELETE',
      headers: { 'content-type': 'text/plain' },
      body: '',
    })
    assert.deepEqual([response.status, await response.text()], [204, ''])
  })
})
