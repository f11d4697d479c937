import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startTestServer, type TestServer } from '../helpers/server.js'

describe('GET /v1/pets/{petId} (getPet, deprecated)', () => {
  let server: TestServer
  let pet: { id: number; name: string; categoryId: number; status: string }
  before(async () => {
    server = await startTestServer()
    pet = await (await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 9, status: 'pending' } })).json()
  })
  after(() => server.close())

  function assertDeprecationHeaders(response: Response): void {
    assert.equal(response.headers.get('deprecation'), '@1767225600')
    assert.equal(response.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT')
    assert.equal(response.headers.get('link'), `<${server.baseUrl}/v1/pets>; rel="successor-version"`)
  }

  it('returns the pet with Deprecation, Sunset and successor Link headers', async () => {
    const response = await server.request(`/v1/pets/${pet.id}`)
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), pet)
    assertDeprecationHeaders(response)
  })

  it('answers HEAD like GET, without a body', async () => {
    const response = await server.request(`/v1/pets/${pet.id}`, { method: 'HEAD' })
    assert.equal(response.status, 200)
    assert.equal(await response.text(), '')
    assertDeprecationHeaders(response)
  })

  it('answers 404 for a well-formed id that does not exist, still deprecated', async () => {
    const response = await server.request('/v1/pets/9007199254740991')
    assert.equal(response.status, 404)
    assert.deepEqual(await response.json(), {
      code: 'not_found',
      message: 'No pet has id 9007199254740991.',
      status: 404,
    })
    assertDeprecationHeaders(response)
  })

  const malformed: [string, string][] = [
    ['abc', 'must be integer'],
    ['0', 'must be >= 1'],
    ['-1', 'must be >= 1'],
    ['01', 'must be integer'],
    ['1.0', 'must be integer'],
    ['1e3', 'must be integer'],
    ['9007199254740992', 'must be <= 9007199254740991'],
    ['18446744073709551616', 'must be <= 9007199254740991'],
    ['%20', 'must be integer'],
  ]
  for (const [id, message] of malformed) {
    it(`answers 400 for petId ${JSON.stringify(id)}, still deprecated`, async () => {
      const response = await server.request(`/v1/pets/${id}`)
      assert.equal(response.status, 400)
      assert.deepEqual(await response.json(), {
        code: 'invalid_request',
        message: `Invalid request: path/petId ${message}`,
        status: 400,
        details: [{ path: 'path/petId', message }],
      })
      assertDeprecationHeaders(response)
    })
  }

  it('refuses query parameters', async () => {
    const response = await server.request(`/v1/pets/${pet.id}?verbose=1`)
    assert.equal(response.status, 400)
    assert.deepEqual(await response.json(), {
      code: 'invalid_request',
      message: 'Invalid request: query/verbose is not a known parameter',
      status: 400,
      details: [{ path: 'query/verbose', message: 'is not a known parameter' }],
    })
  })

  it('without a valid key answers 401 and says nothing about the pet or the deprecation', async () => {
    const refusals = [
      [false, 'An API key is required: send Authorization: Bearer <key>.'],
      ['wrong-key-0123456789', 'The API key is not valid.'],
    ] as const
    for (const [auth, message] of refusals) {
      const response = await server.request(`/v1/pets/${pet.id}`, { auth })
      assert.equal(response.status, 401)
      assert.deepEqual(await response.json(), { code: 'unauthorized', message, status: 401 })
      assert.equal(response.headers.get('deprecation'), null)
    }
  })
})
