// A new category's id goes above every id ever used, by a category or by an animal's categoryId. Once the largest
// id the contract allows has been used, none is left: createCategory answers 409 (nothing is stored) and PUT,
// which names the id itself, still works.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { deleteCategory, putCategory } from '../helpers/categories.js'
import { assertError } from '../helpers/error-assert.js'
import { deletePet } from '../helpers/pets.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const LARGEST = Number.MAX_SAFE_INTEGER

const noIdLeft = {
  status: 409,
  code: 'conflict',
  message: `No category id is left above ${LARGEST}, the largest in use; choose one with PUT. Nothing was changed.`,
}

describe('category ids once the largest has been used', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('refuses createCategory with 409 once an animal carried the largest categoryId, even gone', async () => {
    const response = await server.request('/v1/pets', { json: { name: 'Last group', categoryId: LARGEST } })
    assert.equal(response.status, 201)
    const pet = (await response.json()) as { id: number }
    await assertError(await server.request('/v1/categories', { json: { name: 'Dogs' } }), noIdLeft)
    // The id was used: deleting the animal does not make it new again.
    assert.equal((await deletePet(server, pet.id)).status, 204)
    await assertError(await server.request('/v1/categories', { json: { name: 'Dogs' } }), noIdLeft)
    const list = await server.request('/v1/categories')
    assert.deepEqual(await list.json(), [])
  })

  it('still names categories with PUT, the largest id included', async () => {
    const named = await putCategory(server, 7, 'Dogs')
    assert.equal(named.status, 201)
    assert.deepEqual(await named.json(), { id: 7, name: 'Dogs' })
    const largest = await putCategory(server, LARGEST, 'Last')
    assert.equal(largest.status, 201)
    assert.equal((await deleteCategory(server, LARGEST)).status, 204)
    await assertError(await server.request('/v1/categories', { json: { name: 'Cats' } }), noIdLeft)
  })
})
