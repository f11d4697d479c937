// Conditional requests on one pet (RFC 9110 section 13): a strong ETag on every answer carrying the pet, changing
// exactly when the pet changes (orders included); If-Match on PATCH and DELETE; If-None-Match and If-Match on GET.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../helpers/error-assert.js'
import { addPet, finishOrder, placeOrder, readPet } from '../helpers/orders.js'
import { deletePet, etagOf, patchPet, storedPet } from '../helpers/pets.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const TAG_LIST_RULE =
  'must be * or a comma-separated list of entity tags, each in double quotes as the ETag header gives it (e.g. "12.3")'
const stale = (id: number, current: string) => ({
  status: 412,
  code: 'precondition_failed',
  message:
    `If-Match does not name the current ETag of pet ${id}, ${current}: it was changed since it was read. Nothing ` +
    'was changed; read it again before retrying.',
})
/** The 412 of an If-Match naming the current tag weak: strong comparison, and the client is told so. */
const weak = (id: number, current: string, outcome = ' Nothing was changed.') => ({
  status: 412,
  code: 'precondition_failed',
  message:
    `If-Match names the current ETag of pet ${id} as a weak tag, W/${current}; If-Match compares strongly, so a ` +
    `weak tag never holds: send the ETag as given, ${current}.${outcome}`,
})
const gone = (id: number) => ({
  status: 412,
  code: 'precondition_failed',
  message: `If-Match cannot hold: no pet has id ${id}. Nothing was changed.`,
})

describe('ETag, If-Match and If-None-Match on /v1/pets/{petId}', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  const etagOfGet = async (id: number) => {
    const response = await server.request(`/v1/pets/${id}`)
    assert.equal(response.status, 200)
    await response.arrayBuffer()
    return response.headers.get('etag')
  }

  it('tags the created, read and changed pet, and changes the tag exactly when the pet changes, orders \
included', async () => {
    const created = await server.request('/v1/pets', { json: { name: 'Tagged', categoryId: 2 } })
    const pet = await created.json()
    assert.equal(created.headers.get('etag'), etagOf(pet.id, 1))
    assert.equal(await etagOfGet(pet.id), etagOf(pet.id, 1))
    assert.equal(await etagOfGet(pet.id), etagOf(pet.id, 1), 'reading changes nothing')

    const order = await placeOrder(server, { petId: pet.id })
    assert.equal(await etagOfGet(pet.id), etagOf(pet.id, 2), 'ordered: pending')
    await finishOrder(server, order.id, 'cancel')
    assert.equal(await etagOfGet(pet.id), etagOf(pet.id, 3), 'cancelled: available again')
    // A refused order changes nothing.
    await placeOrder(server, { petId: pet.id })
    assert.equal((await server.request('/v1/store/orders', { json: { petId: pet.id } })).status, 409)
    assert.equal(await etagOfGet(pet.id), etagOf(pet.id, 4))
    // Another pet's changes are not this pet's.
    const other = await addPet(server)
    await patchPet(server, other.id, { name: 'Other' })
    assert.equal(await etagOfGet(pet.id), etagOf(pet.id, 4))
  })

  describe('If-Match', () => {
    it('lets the change through when it names the current ETag, alone, in a list, or as *', async () => {
      const pet = await addPet(server)
      for (const [index, ifMatch] of [
        etagOf(pet.id, 1),
        `"x", ${etagOf(pet.id, 2)}`,
        '*',
        `W/"1.0",\t${etagOf(pet.id, 4)} , "9.9"`,
      ].entries()) {
        const response = await patchPet(server, pet.id, { name: `Step ${index}` }, { 'if-match': ifMatch })
        assert.equal(response.status, 200, ifMatch)
        assert.equal(response.headers.get('etag'), etagOf(pet.id, index + 2))
        await response.arrayBuffer()
      }
    })

    it('ignores empty list elements (RFC 9110 section 5.6.1), as a proxy joining fields may leave', async () => {
      const pet = await addPet(server)
      for (const [index, ifMatch] of [
        `${etagOf(pet.id, 1)},`,
        `, ${etagOf(pet.id, 2)}`,
        `"x",, ,${etagOf(pet.id, 3)} ,`,
      ].entries()) {
        const response = await patchPet(server, pet.id, { name: `Step ${index}` }, { 'if-match': ifMatch })
        assert.equal(response.status, 200, ifMatch)
        await response.arrayBuffer()
      }
      const staleWrite = await patchPet(server, pet.id, { name: 'Late' }, { 'if-match': `, ${etagOf(pet.id, 1)},` })
      await assertError(staleWrite, stale(pet.id, etagOf(pet.id, 4)), { etag: etagOf(pet.id, 4) })
      const notModified = await server.request(`/v1/pets/${pet.id}`, {
        headers: { 'if-none-match': `"x", ${etagOf(pet.id, 4)},` },
      })
      assert.equal(notModified.status, 304)
      for (const malformed of [',', ', ,', '*,', `*, ${etagOf(pet.id, 4)}`]) {
        await assertError(await patchPet(server, pet.id, { name: 'Never' }, { 'if-match': malformed }), {
          status: 400,
          code: 'invalid_request',
          message: `Invalid request: header/if-match ${TAG_LIST_RULE}`,
          details: [{ path: 'header/if-match', message: TAG_LIST_RULE }],
        })
      }
    })

    it('refuses a stale, weak, foreign or unknown tag with 412 and the current ETag, changing nothing', async () => {
      const pet = await addPet(server)
      await patchPet(server, pet.id, { name: 'Moved' })
      const other = await addPet(server)
      for (const ifMatch of [
        etagOf(pet.id, 1),
        `W/${etagOf(pet.id, 1)}`,
        etagOf(other.id, 2),
        '"anything"',
        `${etagOf(pet.id, 3)}, ${etagOf(pet.id, 1)}`,
      ]) {
        await assertError(
          await patchPet(server, pet.id, { name: 'Lost update' }, { 'if-match': ifMatch }),
          stale(pet.id, etagOf(pet.id, 2)),
          { etag: etagOf(pet.id, 2) },
        )
        await assertError(await deletePet(server, pet.id, { 'if-match': ifMatch }), stale(pet.id, etagOf(pet.id, 2)), {
          etag: etagOf(pet.id, 2),
        })
      }
      // The current tag sent weak is refused as weak, not as stale: the client holds the right version.
      for (const ifMatch of [`W/${etagOf(pet.id, 2)}`, `W/${etagOf(pet.id, 2)}, ${etagOf(pet.id, 1)}`]) {
        await assertError(
          await patchPet(server, pet.id, { name: 'Lost update' }, { 'if-match': ifMatch }),
          weak(pet.id, etagOf(pet.id, 2)),
          { etag: etagOf(pet.id, 2) },
        )
        await assertError(await deletePet(server, pet.id, { 'if-match': ifMatch }), weak(pet.id, etagOf(pet.id, 2)), {
          etag: etagOf(pet.id, 2),
        })
      }
      assert.deepEqual(await storedPet(server, pet.id), { ...pet, name: 'Moved', version: 2, deleted: false })
    })

    it('answers 412 without an ETag once the pet is gone (or never was), whatever the tag, * included', async () => {
      const pet = await addPet(server)
      assert.equal((await deletePet(server, pet.id, { 'if-match': etagOf(pet.id, 1) })).status, 204)
      for (const id of [pet.id, 987_654]) {
        for (const ifMatch of ['*', etagOf(id, 1), etagOf(id, 2)]) {
          await assertError(await patchPet(server, id, { name: 'Revived' }, { 'if-match': ifMatch }), gone(id), {
            etag: null,
          })
          await assertError(await deletePet(server, id, { 'if-match': ifMatch }), gone(id), { etag: null })
        }
      }
      assert.deepEqual(await storedPet(server, pet.id), { ...pet, version: 2, deleted: true })
    })

    it('checks If-Match before the placed order: a stale client learns it is stale (412), not why it could not win \
(409)', async () => {
      const pet = await addPet(server)
      await placeOrder(server, { petId: pet.id })
      await assertError(
        await patchPet(server, pet.id, { status: 'sold' }, { 'if-match': etagOf(pet.id, 1) }),
        stale(pet.id, etagOf(pet.id, 2)),
        { etag: etagOf(pet.id, 2) },
      )
      assert.equal((await patchPet(server, pet.id, { status: 'sold' }, { 'if-match': etagOf(pet.id, 2) })).status, 409)
    })
  })

  describe('If-None-Match and If-Match on GET', () => {
    it('answers 304 with the ETag and the deprecation headers, no body and no length while the pet is \
unchanged', async () => {
      const pet = await addPet(server)
      for (const ifNoneMatch of [etagOf(pet.id, 1), `W/${etagOf(pet.id, 1)}`, `"x", ${etagOf(pet.id, 1)}`, '*']) {
        for (const method of ['GET', 'HEAD']) {
          const response = await server.request(`/v1/pets/${pet.id}`, {
            method,
            headers: { 'if-none-match': ifNoneMatch },
          })
          assert.equal(response.status, 304, `${method} ${ifNoneMatch}`)
          assert.equal(await response.text(), '')
          assert.equal(response.headers.get('etag'), etagOf(pet.id, 1))
          assert.equal(response.headers.get('content-type'), null)
          // Not HEAD's own `Content-Length: 0`: a 304 carries the 200's length or none (RFC 9110 section 8.6).
          assert.equal(response.headers.get('content-length'), null, `${method} ${ifNoneMatch}`)
          assert.equal(response.headers.get('deprecation'), '@1767225600')
          assert.equal(response.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT')
          assert.equal(response.headers.get('link'), `<${server.baseUrl}/v1/pets>; rel="successor-version"`)
          assert.ok(response.headers.get('x-request-id'))
        }
      }
    })

    it('answers 200 with the pet once it changed, and 404 for a pet that is gone', async () => {
      const pet = await addPet(server)
      await patchPet(server, pet.id, { name: 'Changed' })
      const response = await server.request(`/v1/pets/${pet.id}`, { headers: { 'if-none-match': etagOf(pet.id, 1) } })
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('etag'), etagOf(pet.id, 2))
      assert.deepEqual(await response.json(), { ...pet, name: 'Changed' })
      await deletePet(server, pet.id)
      await assertError(await server.request(`/v1/pets/${pet.id}`, { headers: { 'if-none-match': '*' } }), {
        status: 404,
        code: 'not_found',
        message: `No pet has id ${pet.id}.`,
      })
    })

    it('answers 412 with the current ETag when If-Match does not name it, before If-None-Match counts', async () => {
      const pet = await addPet(server)
      await patchPet(server, pet.id, { name: 'Read' })
      const current = etagOf(pet.id, 2)
      for (const ifMatch of [etagOf(pet.id, 1), `W/${etagOf(pet.id, 1)}`, '"anything"', `${etagOf(pet.id, 1)}, "x"`]) {
        for (const [method, body] of [
          ['GET', true],
          ['HEAD', false],
        ] as const) {
          const response = await server.request(`/v1/pets/${pet.id}`, {
            method,
            headers: { 'if-match': ifMatch, 'if-none-match': current },
          })
          assert.equal(response.status, 412, `${method} ${ifMatch}`)
          assert.equal(response.headers.get('etag'), current)
          assert.equal(response.headers.get('deprecation'), '@1767225600')
          if (body)
            assert.deepEqual(await response.json(), {
              code: 'precondition_failed',
              message:
                `If-Match does not name the current ETag of pet ${pet.id}, ${current}: it was changed since that ` +
                'ETag was read.',
              status: 412,
            })
          else assert.equal(await response.text(), '')
        }
      }
      const weakRead = await server.request(`/v1/pets/${pet.id}`, { headers: { 'if-match': `W/${current}` } })
      assert.equal(weakRead.headers.get('etag'), current)
      await assertError(weakRead, weak(pet.id, current, ''))
      // It holds: the current tag (strong), alone or listed, or *; then If-None-Match decides.
      for (const ifMatch of [current, `"x", ${current}`, '*']) {
        const read = await server.request(`/v1/pets/${pet.id}`, { headers: { 'if-match': ifMatch } })
        assert.equal(read.status, 200, ifMatch)
        assert.deepEqual(await read.json(), { ...pet, name: 'Read' })
        const unchanged = await server.request(`/v1/pets/${pet.id}`, {
          headers: { 'if-match': ifMatch, 'if-none-match': current },
        })
        assert.equal(unchanged.status, 304, ifMatch)
        assert.equal(await unchanged.text(), '')
      }
      // A pet that does not exist is a 404 whatever the condition (RFC 9110 section 13.2.1).
      await assertError(await server.request('/v1/pets/987654', { headers: { 'if-match': '*' } }), {
        status: 404,
        code: 'not_found',
        message: 'No pet has id 987654.',
      })
    })

    it('refuses a malformed If-None-Match or If-Match with 400', async () => {
      const pet = await addPet(server)
      const message = TAG_LIST_RULE
      await assertError(
        await server.request(`/v1/pets/${pet.id}`, { headers: { 'if-none-match': '1.1' } }),
        {
          status: 400,
          code: 'invalid_request',
          message: `Invalid request: header/if-none-match ${message}`,
          details: [{ path: 'header/if-none-match', message }],
        },
        { deprecation: '@1767225600' },
      )
      await assertError(await server.request(`/v1/pets/${pet.id}`, { headers: { 'if-match': '1.1' } }), {
        status: 400,
        code: 'invalid_request',
        message: `Invalid request: header/if-match ${message}`,
        details: [{ path: 'header/if-match', message }],
      })
      assert.deepEqual(await readPet(server, pet.id), pet)
    })
  })
})
