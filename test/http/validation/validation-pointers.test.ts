// A problem's `details` path is the request part and a JSON pointer into it (RFC 6901): a name holding `/` or `~`
// is written with `~1` and `~0`, for an unknown property or parameter as for a duplicate key or a wrong value, so
// that `body/a~1b` (the property "a/b") is never read as `body/a/b` (property "b" inside property "a").
import { after, before, describe, it } from 'node:test'
import { assertError } from '../../helpers/error-assert.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'

describe('validation details name properties and parameters as JSON pointers', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('escapes an unknown body property holding / and ~', async () => {
    const response = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1, 'a/b': 1, 'c~d': 2 } })
    await assertError(response, {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: body/a~1b is not allowed; body/c~0d is not allowed',
      details: [
        { path: 'body/a~1b', message: 'is not allowed' },
        { path: 'body/c~0d', message: 'is not allowed' },
      ],
    })
  })

  it('escapes an unknown property of a patch the same way', async () => {
    const created = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
    const { id } = (await created.json()) as { id: number }
    const response = await server.request(`/v1/pets/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '{"x/y":1}',
    })
    await assertError(response, {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: body/x~1y is not allowed',
      details: [{ path: 'body/x~1y', message: 'is not allowed' }],
    })
  })

  it('escapes an unknown query parameter holding / and ~', async () => {
    const response = await server.request('/v1/pets?a/b=1&c~d=2')
    await assertError(response, {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: query/a~1b is not a known parameter; query/c~0d is not a known parameter',
      details: [
        { path: 'query/a~1b', message: 'is not a known parameter' },
        { path: 'query/c~0d', message: 'is not a known parameter' },
      ],
    })
  })

  it('writes a duplicate key with the same pointer', async () => {
    const response = await server.request('/v1/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":1,"a/b":1,"a/b":2}',
    })
    await assertError(response, {
      status: 400,
      code: 'invalid_request',
      message: 'The request body gives the key "a/b" twice in the same object (at /a~1b); each key may appear once.',
      details: [{ path: 'body/a~1b', message: 'is a duplicate key' }],
    })
  })
})
