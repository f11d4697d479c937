// If-Match or If-None-Match sent with a change that cannot evaluate it (its resource has no entity tag) is refused
// with 400 and nothing changes; the operations that evaluate a condition keep doing so, and safe methods ignore them.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { putCategory } from '../../helpers/categories.js'
import { assertError } from '../../helpers/error-assert.js'
import { addPet, placeOrder, readOrder } from '../../helpers/orders.js'
import { patchPet } from '../../helpers/pets.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'

const notTaken = (header: 'If-Match' | 'If-None-Match', taken?: 'If-Match') => ({
  status: 400,
  code: 'invalid_request',
  message:
    `This operation does not take ${header}: ` +
    `${taken ? `it takes ${taken} only` : 'its resource has no entity tag to compare'}. Nothing was changed.`,
  details: [{ path: `header/${header.toLowerCase()}`, message: 'is not supported by this operation' }],
})

describe('conditional headers on a change that has no entity tag to compare', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('refuses If-Match on an order, and the order stays as it was', async () => {
    const pet = await addPet(server)
    const order = await placeOrder(server, { petId: pet.id, quantity: 1 })
    for (const ifMatch of ['"1.1"', '*']) {
      await assertError(
        await server.request(`/v1/store/orders/${order.id}`, { method: 'DELETE', headers: { 'if-match': ifMatch } }),
        notTaken('If-Match'),
      )
    }
    await assertError(
      await server.request(`/v1/store/orders/${order.id}/complete`, {
        method: 'POST',
        headers: { 'if-none-match': '*' },
      }),
      notTaken('If-None-Match'),
    )
    assert.equal((await readOrder(server, order.id)).status, 'placed')
    // Reading it ignores a condition, as every safe method does.
    const read = await server.request(`/v1/store/orders/${order.id}`, { headers: { 'if-match': '"nothing"' } })
    assert.equal(read.status, 200)
  })

  it('refuses them on a create and on a webhook change, creating and changing nothing', async () => {
    await assertError(
      await server.request('/v1/pets', {
        json: { name: 'Conditional', categoryId: 1 },
        headers: { 'if-none-match': '*' },
      }),
      notTaken('If-None-Match'),
    )
    const named = await server.request('/v1/pets?limit=100')
    assert.deepEqual(
      ((await named.json()) as { name: string }[]).filter((pet) => pet.name === 'Conditional'),
      [],
    )
    await assertError(
      await server.request('/v1/webhooks/1', {
        method: 'PATCH',
        json: { description: 'x' },
        headers: { 'if-match': '*' },
      }),
      notTaken('If-Match'),
    )
  })

  it('refuses If-None-Match on a pet change, which takes If-Match only; If-Match still decides', async () => {
    const pet = await addPet(server)
    const read = await server.request(`/v1/pets/${pet.id}`)
    const etag = read.headers.get('etag') ?? ''
    await assertError(
      await patchPet(server, pet.id, { name: 'Renamed' }, { 'if-none-match': '"0.0"' }),
      notTaken('If-None-Match', 'If-Match'),
    )
    const changed = await patchPet(server, pet.id, { name: 'Renamed' }, { 'if-match': etag })
    assert.equal(changed.status, 200)
    assert.equal(((await changed.json()) as { name: string }).name, 'Renamed')
  })

  it('leaves the operations that take both alone: PUT of a category with If-None-Match: *', async () => {
    const created = await putCategory(server, 41, 'Conditional', { 'if-none-match': '*' })
    assert.equal(created.status, 201)
  })

  it('asks for a key first', async () => {
    const response = await server.request('/v1/store/orders/1', {
      method: 'DELETE',
      headers: { 'if-match': '*' },
      auth: false,
    })
    assert.equal(response.status, 401)
  })
})
