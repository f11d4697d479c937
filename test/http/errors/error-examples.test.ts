// The error examples of the OpenAPI document are what the service says: each equals the body the message
// factories make, and the service answers those very bodies on the wire.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { isDeepStrictEqual } from 'node:util'
import { exampleBody } from '../../../src/http/errors/error-examples.js'
import { MESSAGES } from '../../../src/http/errors/error-messages.js'
import { ERROR_CODES, type ErrorCode } from '../../../src/http/errors/errors.js'
import { BODY_LIMIT_BYTES } from '../../../src/http/limits.js'
import { issueApiKey } from '../../../src/keys/issue-key.js'
import { SCOPES } from '../../../src/keys/scopes.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'

interface ErrorBody {
  code: ErrorCode
  message: string
  status: number
}

const isErrorBody = (value: unknown): value is ErrorBody =>
  typeof value === 'object' &&
  value !== null &&
  'code' in value &&
  typeof value.code === 'string' &&
  Object.hasOwn(ERROR_CODES, value.code) &&
  'message' in value &&
  typeof value.message === 'string'

/** Every error body the document shows as an example, wherever it is. */
function documentedErrorBodies(node: unknown, found: ErrorBody[] = []): ErrorBody[] {
  if (isErrorBody(node)) found.push(node)
  else if (typeof node === 'object' && node !== null)
    for (const value of Object.values(node)) documentedErrorBodies(value, found)
  return found
}

describe('the documented error examples', () => {
  let server: TestServer
  let examples: ErrorBody[]
  let readOnlyKey: string

  before(async () => {
    server = await startTestServer()
    const document: unknown = await (await server.request('/v1/openapi.json', { auth: false })).json()
    examples = documentedErrorBodies(document)
    readOnlyKey = (await issueApiKey(server.store, 'error examples: read only', { scopes: ['pets:read'] })).key
  })
  after(() => server.close())

  it('are each what the message factories make, for every code and every scope a 403 names', () => {
    const forbidden = SCOPES.map((scope) => exampleBody('forbidden', MESSAGES.scopeMissing(scope)))
    for (const example of examples) {
      if (example.code === 'forbidden')
        assert.ok(
          forbidden.some((made) => isDeepStrictEqual(made, example)),
          example.message,
        )
      else assert.deepEqual(example, exampleBody(example.code))
    }
    assert.deepEqual(new Set(examples.map(({ code }) => code)), new Set(Object.keys(ERROR_CODES)))
  })

  const answers: [ErrorCode, string, () => Promise<Response>][] = [
    ['not_found', 'GET /v1/pets/12 of an empty shop', () => server.request('/v1/pets/12')],
    ['unauthorized', 'GET /v1/pets without a key', () => server.request('/v1/pets', { auth: false })],
    [
      'forbidden',
      'POST /v1/pets with a pets:read key',
      () => server.request('/v1/pets', { method: 'POST', auth: readOnlyKey, json: { name: 'Rex', categoryId: 3 } }),
    ],
    ['method_not_allowed', 'PUT /v1/pets', () => server.request('/v1/pets', { method: 'PUT' })],
    [
      'invalid_request',
      'POST /v1/pets with a categoryId that is text',
      () => server.request('/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: '3' } }),
    ],
    [
      'unsupported_media_type',
      'POST /v1/pets as text/plain',
      () => server.request('/v1/pets', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'Rex' }),
    ],
    [
      'payload_too_large',
      'POST /v1/pets with a body over the limit',
      () =>
        server.request('/v1/pets', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'x'.repeat(BODY_LIMIT_BYTES) }),
        }),
    ],
  ]
  for (const [code, request, send] of answers) {
    it(`${code}: the service answers ${request} with the documented example, byte for byte`, async () => {
      const response = await send()
      // A 403 names the scope missing: the example of the pets:write one.
      const expected = examples.find(
        (example) => example.code === code && (code !== 'forbidden' || example.message.includes('pets:write')),
      )
      assert.equal(response.status, ERROR_CODES[code].status)
      assert.equal(await response.text(), JSON.stringify(expected))
    })
  }
})
