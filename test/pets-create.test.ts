import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startTestServer, type TestServer } from './helpers/server.js'

describe('POST /v1/pets (createPet)', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('creates a pet, defaults status to available, and answers 201 with Location', async () => {
    const response = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 7 } })
    assert.equal(response.status, 201)
    const pet = await response.json()
    assert.deepEqual(pet, { id: pet.id, name: 'Rex', categoryId: 7, status: 'available' })
    assert.ok(Number.isSafeInteger(pet.id) && pet.id >= 1)
    assert.equal(response.headers.get('location'), `${server.baseUrl}/v1/pets/${pet.id}`)
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
  })
})
