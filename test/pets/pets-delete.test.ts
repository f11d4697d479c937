// DELETE /v1/pets/{petId} (deletePet): 204, then the pet is gone for every operation, lists and cursors pass it
// by, its id is never given again, and its finished orders stay readable; refused while an order is placed.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../helpers/error-assert.js'
import { collectPages, nextLink } from '../helpers/link.js'
import { addPet, finishOrder, placeOrder, readOrder, type Pet } from '../helpers/orders.js'
import { deletePet, etagOf, patchPet, storedPet } from '../helpers/pets.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const notFound = (id: number) => ({ status: 404, code: 'not_found', message: `No pet has id ${id}.` })

describe('DELETE /v1/pets/{petId} (deletePet)', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  const path = (id: number) => `/v1/pets/${id}`

  it('answers 204 without a body; then get, patch and delete of it are 404 and lists leave it out', async () => {
    const pet = await addPet(server, 'sold', 'Leaving')
    const response = await deletePet(server, pet.id)
    assert.equal(response.status, 204)
    assert.equal(await response.text(), '')
    assert.equal(response.headers.get('content-type'), null)
    assert.equal(response.headers.get('etag'), null)

    await assertError(await server.request(path(pet.id)), notFound(pet.id), { deprecation: '@1767225600' })
    await assertError(await patchPet(server, pet.id, { name: 'Back' }), notFound(pet.id))
    await assertError(await deletePet(server, pet.id), notFound(pet.id))
    for (const query of ['', '?status=sold']) {
      const listed = await collectPages<Pet>(
        (page) => server.request(page),
        `/v1/pets${query}${query ? '&' : '?'}limit=100`,
      )
      assert.ok(!listed.some((listedPet) => listedPet.id === pet.id), query)
    }
    await assertError(await server.request('/v1/store/orders', { json: { petId: pet.id } }), {
      status: 404,
      code: 'not_found',
      message: `No pet has id ${pet.id}.`,
      details: [{ path: 'body/petId', message: 'does not exist' }],
    })
    assert.deepEqual(await storedPet(server, pet.id), { ...pet, version: 2, deleted: true })
  })

  it('never gives a deleted id to a new pet, not even after deleting the newest', async () => {
    const newest = await addPet(server, 'available', 'Newest')
    assert.equal((await deletePet(server, newest.id)).status, 204)
    const next = await addPet(server, 'available', 'Next')
    assert.ok(next.id > newest.id, `${next.id} > ${newest.id}`)
  })

  it('keeps a cursor issued before the delete working, and the walk complete without the deleted pets', async () => {
    const pets = await Promise.all(
      Array.from({ length: 7 }, (_, index) => addPet(server, 'pending', `Walked ${index}`)),
    )
    pets.sort((a, b) => a.id - b.id)
    const first = await server.request('/v1/pets?status=pending&limit=2')
    const firstPage: Pet[] = await first.json()
    const next = nextLink(first)
    assert.ok(next)
    // The cursor points after the second pet: delete it, and the next two.
    const deleted = new Set([firstPage[1]?.id, pets[2]?.id, pets[3]?.id].filter((id) => id !== undefined))
    for (const id of deleted) assert.equal((await deletePet(server, id)).status, 204)
    const nextPath = new URL(next).pathname + new URL(next).search
    const rest = await collectPages<Pet>((page) => server.request(page), nextPath)
    const walked = [...firstPage, ...rest].filter((pet) => pets.some((created) => created.id === pet.id))
    assert.deepEqual(
      walked.map((pet) => pet.id),
      pets.filter((pet) => pet === pets[0] || pet === pets[1] || !deleted.has(pet.id)).map((pet) => pet.id),
    )
  })

  it('is refused with 409 while the pet has a placed order, and allowed once the order is finished; the orders stay \
readable', async () => {
    const pet = await addPet(server)
    const cancelled = await placeOrder(server, { petId: pet.id })
    await finishOrder(server, cancelled.id, 'cancel')
    const order = await placeOrder(server, { petId: pet.id })
    const conflict = {
      status: 409,
      code: 'conflict',
      message:
        `Pet ${pet.id} has a placed order (${order.id}); complete or cancel it before deleting the pet. Nothing ` +
        'was changed.',
    }
    await assertError(await deletePet(server, pet.id), conflict)
    await assertError(await deletePet(server, pet.id, { 'if-match': etagOf(pet.id, 4) }), conflict)
    assert.deepEqual(await storedPet(server, pet.id), { ...pet, status: 'pending', version: 4, deleted: false })

    const completed = await finishOrder(server, order.id, 'complete')
    assert.equal((await deletePet(server, pet.id, { 'if-match': etagOf(pet.id, 5) })).status, 204)
    assert.deepEqual(await readOrder(server, cancelled.id), { ...cancelled, status: 'cancelled' })
    assert.deepEqual(await readOrder(server, order.id), completed)
    assert.equal(completed.petId, pet.id)
    const listed = await collectPages<{ id: number }>((page) => server.request(page), '/v1/store/orders?limit=100')
    assert.ok([cancelled.id, order.id].every((id) => listed.some((listedOrder) => listedOrder.id === id)))
  })

  it('refuses a body (400) and a malformed If-Match (400), deleting nothing', async () => {
    const pet = await addPet(server)
    await assertError(
      await server.request(path(pet.id), {
        method: 'DELETE',
        headers: { 'content-type': 'application/json' },
        body: '{"force":true}',
      }),
      {
        status: 400,
        code: 'invalid_request',
        message: 'Invalid request: this operation takes no request body.',
        details: [{ path: 'body', message: 'must be absent' }],
      },
    )
    const message =
      'must be * or a comma-separated list of entity tags, each in double quotes as the ETag header gives it ' +
      '(e.g. "12.3")'
    await assertError(await deletePet(server, pet.id, { 'if-match': String(pet.id) }), {
      status: 400,
      code: 'invalid_request',
      message: `Invalid request: header/if-match ${message}`,
      details: [{ path: 'header/if-match', message }],
    })
    await assertError(await deletePet(server, 0), {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: path/petId must be >= 1',
      details: [{ path: 'path/petId', message: 'must be >= 1' }],
    })
    assert.deepEqual(await storedPet(server, pet.id), { ...pet, version: 1, deleted: false })
  })

  it('deletes once under an Idempotency-Key and replays the 204', async () => {
    const pet = await addPet(server)
    const send = () => deletePet(server, pet.id, { 'idempotency-key': 'delete-once' })
    const first = await send()
    assert.equal(first.status, 204)
    assert.equal(first.headers.get('idempotent-replayed'), null)
    const replay = await send()
    assert.equal(replay.status, 204)
    assert.equal(replay.headers.get('idempotent-replayed'), 'true')
    assert.equal(replay.headers.get('content-type'), null)
    assert.equal(await replay.text(), '')
    await assertError(await deletePet(server, pet.id), notFound(pet.id))
  })

  it('counts updates, deletes and 412s in /metrics, not the replays', async () => {
    const sample = async (series: string) => {
      const text = await (await server.request('/metrics', { auth: false })).text()
      return Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`${series} `))
          ?.slice(series.length + 1) ?? 0,
      )
    }
    const series = [
      'petstore_pet_updates_total',
      'petstore_pet_deletes_total',
      'petstore_precondition_failures_total{operation="updatePet"}',
      'petstore_precondition_failures_total{operation="deletePet"}',
    ]
    const before = await Promise.all(series.map(sample))
    const pet = await addPet(server)
    for (let attempt = 0; attempt < 2; attempt++)
      await (await patchPet(server, pet.id, { name: 'Counted' }, { 'idempotency-key': 'counted-update' })).arrayBuffer()
    await (await patchPet(server, pet.id, { name: 'Stale' }, { 'if-match': etagOf(pet.id, 1) })).arrayBuffer()
    await (await deletePet(server, pet.id, { 'if-match': etagOf(pet.id, 1) })).arrayBuffer()
    await (await deletePet(server, pet.id, { 'if-match': etagOf(pet.id, 1) })).arrayBuffer()
    for (let attempt = 0; attempt < 2; attempt++)
      await (await deletePet(server, pet.id, { 'idempotency-key': 'counted-delete' })).arrayBuffer()
    // Counted once the response is out (onResponse): the scrape may come a moment later.
    let after: number[] = []
    for (let attempt = 0; attempt < 50; attempt++) {
      after = await Promise.all(series.map(sample))
      if (after[1] === (before[1] ?? 0) + 1) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    assert.deepEqual(
      after.map((value, index) => value - (before[index] ?? 0)),
      [1, 1, 1, 2],
    )
  })
})
