// PATCH /v1/pets/{petId} (updatePet): JSON Merge Patch of name, categoryId and status, the status held by a
// placed order, Idempotency-Key, and every refusal with the pet as stored asserted unchanged after it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError, IDEMPOTENCY_KEY_REUSED, JSON_CONTENT_TYPE } from '../helpers/error-assert.js'
import { addPet, finishOrder, placeOrder, readPet } from '../helpers/orders.js'
import { etagOf, MERGE_PATCH, patchPet, storedPet, VISIBLE_NAME_RULE as NAME_RULE } from '../helpers/pets.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const invalid = (path: string, message: string) => ({
  status: 400,
  code: 'invalid_request',
  message: `Invalid request: ${path} ${message}`,
  details: [{ path, message }],
})
const ENTITY_TAG_LIST =
  'must be * or a comma-separated list of entity tags, each in double quotes as the ETag header gives it (e.g. "12.3")'

describe('PATCH /v1/pets/{petId} (updatePet)', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('replaces the properties given, keeps the others, and answers the pet as stored with its new ETag', async () => {
    const pet = await addPet(server, 'available', 'Rex')
    const renamed = await patchPet(server, pet.id, { name: 'Max' })
    assert.equal(renamed.status, 200)
    assert.equal(renamed.headers.get('content-type'), JSON_CONTENT_TYPE)
    assert.equal(renamed.headers.get('etag'), etagOf(pet.id, 2))
    assert.deepEqual(await renamed.json(), { ...pet, name: 'Max' })

    const moved = await patchPet(server, pet.id, { categoryId: Number.MAX_SAFE_INTEGER, status: 'sold' })
    assert.equal(moved.headers.get('etag'), etagOf(pet.id, 3))
    const expected = { id: pet.id, name: 'Max', categoryId: Number.MAX_SAFE_INTEGER, status: 'sold' }
    assert.deepEqual(await moved.json(), expected)

    const read = await server.request(`/v1/pets/${pet.id}`)
    assert.equal(read.headers.get('etag'), etagOf(pet.id, 3))
    assert.deepEqual(await read.json(), expected)
    assert.deepEqual(await (await server.request('/v1/pets?status=sold&limit=100')).json(), [expected])
    assert.deepEqual(await storedPet(server, pet.id), { ...expected, version: 3, deleted: false })
  })

  it('names the patch formats it takes in Accept-Patch: on a 415 for another media type, and to OPTIONS', async () => {
    const pet = await addPet(server)
    const formats = `${MERGE_PATCH}, application/json`
    for (const type of ['application/json-patch+json', 'text/plain']) {
      const refused = await patchPet(server, pet.id, [], { 'content-type': type })
      await assertError(refused, {
        status: 415,
        code: 'unsupported_media_type',
        message: `The request body must be sent as Content-Type: ${MERGE_PATCH} or application/json.`,
      })
      assert.equal(refused.headers.get('accept-patch'), formats, type)
    }
    // A 415 about the charset or the coding is not about the format: no Accept-Patch.
    const charset = await patchPet(server, pet.id, { name: 'x' }, { 'content-type': `${MERGE_PATCH}; charset=latin1` })
    await assertError(charset, {
      status: 415,
      code: 'unsupported_media_type',
      message:
        'The request body must be UTF-8 JSON; charset=latin1 is not supported. Send Content-Type: ' +
        `${MERGE_PATCH} (charset=utf-8 may be added).`,
    })
    assert.equal(charset.headers.get('accept-patch'), null)
    // Nor does an operation that is not a PATCH name them.
    const created = await server.request('/v1/pets', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    })
    await assertError(created, {
      status: 415,
      code: 'unsupported_media_type',
      message: 'The request body must be sent as Content-Type: application/json.',
    })
    assert.equal(created.headers.get('accept-patch'), null)

    const options = async (path: string) => {
      const response = await server.request(path, { method: 'OPTIONS', auth: false })
      assert.equal(response.status, 204, path)
      await response.arrayBuffer()
      return response.headers.get('accept-patch')
    }
    assert.equal(await options(`/v1/pets/${pet.id}`), formats)
    assert.equal(await options('/v1/webhooks/1'), formats)
    assert.equal(await options('/v1/pets'), null)
    assert.equal(await options('/v1/categories/1'), null)
    assert.deepEqual(await storedPet(server, pet.id), { ...pet, version: 1, deleted: false })
  })

  it('takes application/json as the same patch, and either media type in any case with charset=utf-8', async () => {
    const pet = await addPet(server)
    const types = [
      'application/json',
      'application/json; charset=utf-8',
      `${MERGE_PATCH}; charset=UTF-8`,
      'Application/Merge-Patch+JSON',
    ]
    for (const [index, type] of types.entries()) {
      const response = await patchPet(server, pet.id, { name: `Typed ${index}` }, { 'content-type': type })
      assert.equal(response.status, 200, type)
      assert.deepEqual(await response.json(), { ...pet, name: `Typed ${index}` })
    }
  })

  it('keeps the version and the ETag when the patch changes nothing', async () => {
    const pet = await addPet(server, 'pending', 'Same')
    const response = await patchPet(server, pet.id, { name: 'Same', categoryId: pet.categoryId, status: 'pending' })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('etag'), etagOf(pet.id, 1))
    assert.deepEqual(await response.json(), pet)
    assert.equal((await storedPet(server, pet.id))?.version, 1)
  })

  it('refuses a status change while the pet has a placed order (409, nothing changed), but not another \
change', async () => {
    const pet = await addPet(server, 'available', 'Ordered')
    const order = await placeOrder(server, { petId: pet.id })
    for (const status of ['available', 'sold']) {
      await assertError(await patchPet(server, pet.id, { status, name: 'Sneaky' }), {
        status: 409,
        code: 'conflict',
        message:
          `Pet ${pet.id} has a placed order (${order.id}): its status follows that order until it is completed or ` +
          'cancelled. Nothing was changed.',
      })
    }
    assert.deepEqual(await storedPet(server, pet.id), { ...pet, status: 'pending', version: 2, deleted: false })
    // The status it already has is no change; the name may change.
    const renamed = await patchPet(server, pet.id, { name: 'Still ordered', status: 'pending' })
    assert.equal(renamed.status, 200)
    assert.deepEqual(await renamed.json(), { ...pet, name: 'Still ordered', status: 'pending' })

    await finishOrder(server, order.id, 'complete')
    const relisted = await patchPet(server, pet.id, { status: 'available' })
    assert.equal(relisted.status, 200)
    assert.equal(relisted.headers.get('etag'), etagOf(pet.id, 5))
    assert.deepEqual(await relisted.json(), { ...pet, name: 'Still ordered', status: 'available' })
  })

  it('answers 404 for a pet that does not exist', async () => {
    await assertError(await patchPet(server, 987_654, { name: 'Ghost' }), {
      status: 404,
      code: 'not_found',
      message: 'No pet has id 987654.',
    })
  })

  describe('refuses bad input with the Error body and changes nothing', () => {
    let pet: Awaited<ReturnType<typeof addPet>>
    let petCount = 0
    before(async () => {
      pet = await addPet(server, 'available', 'Untouched')
      petCount = (await server.store.admin.selectFrom('pets').select('id').execute()).length
    })

    const cases: { title: string; send: () => Promise<Response>; expected: Parameters<typeof assertError>[1] }[] = [
      { title: 'null', send: () => patchPet(server, pet.id, 'null'), expected: invalid('body', 'must be object') },
      {
        title: 'an empty patch',
        send: () => patchPet(server, pet.id, '{}'),
        expected: invalid('body', 'must NOT have fewer than 1 properties'),
      },
      { title: 'an array', send: () => patchPet(server, pet.id, '[]'), expected: invalid('body', 'must be object') },
      {
        title: 'an unknown property',
        send: () => patchPet(server, pet.id, { nickname: 'Rexy' }),
        expected: invalid('body/nickname', 'is not allowed'),
      },
      {
        title: 'the id',
        send: () => patchPet(server, pet.id, { id: 5, name: 'Other' }),
        expected: invalid('body/id', 'is not allowed'),
      },
      {
        title: 'a null name (removal)',
        send: () => patchPet(server, pet.id, { name: null }),
        expected: invalid('body/name', 'must be string'),
      },
      {
        title: 'a null categoryId',
        send: () => patchPet(server, pet.id, { categoryId: null }),
        expected: invalid('body/categoryId', 'must be integer'),
      },
      {
        title: 'a blank name',
        send: () => patchPet(server, pet.id, { name: '  ' }),
        expected: invalid('body/name', NAME_RULE),
      },
      {
        title: 'a name over 200 characters',
        send: () => patchPet(server, pet.id, { name: 'x'.repeat(201) }),
        expected: invalid('body/name', 'must NOT have more than 200 characters'),
      },
      {
        title: 'categoryId 0',
        send: () => patchPet(server, pet.id, { categoryId: 0 }),
        expected: invalid('body/categoryId', 'must be >= 1'),
      },
      {
        title: 'a fractional categoryId',
        send: () => patchPet(server, pet.id, { categoryId: 1.5 }),
        expected: invalid('body/categoryId', 'must be integer'),
      },
      {
        title: 'a quoted categoryId',
        send: () => patchPet(server, pet.id, { categoryId: '5' }),
        expected: invalid('body/categoryId', 'must be integer'),
      },
      {
        title: 'a categoryId that cannot be read exactly',
        send: () => patchPet(server, pet.id, '{"categoryId":9007199254740993}'),
        expected: {
          status: 400,
          code: 'invalid_request',
          message:
            'The number 9007199254740993 cannot be read exactly: integers are written without fraction or ' +
            'exponent and lie between -9007199254740991 and 9007199254740991.',
          details: [{ path: 'body/categoryId', message: 'is a number that cannot be read exactly' }],
        },
      },
      {
        title: 'an unknown status',
        send: () => patchPet(server, pet.id, { status: 'lost' }),
        expected: invalid('body/status', 'must be one of "available", "pending", "sold"'),
      },
      {
        title: 'broken JSON',
        send: () => patchPet(server, pet.id, '{"name":'),
        expected: { status: 400, code: 'invalid_request', message: 'The request body is not valid JSON.' },
      },
      {
        title: 'no body',
        send: () => patchPet(server, pet.id, ''),
        expected: {
          status: 400,
          code: 'invalid_request',
          message: 'The request body is empty; a JSON object is required.',
        },
      },
      {
        title: 'a key given twice',
        send: () => patchPet(server, pet.id, '{"name":"a","name":"b"}'),
        expected: {
          status: 400,
          code: 'invalid_request',
          message:
            'The request body gives the key "name" twice in the same object (at /name); each key may appear once.',
          details: [{ path: 'body/name', message: 'is a duplicate key' }],
        },
      },
      {
        title: 'a body over 16 KiB',
        send: () => patchPet(server, pet.id, { name: 'R'.repeat(17 * 1024) }),
        expected: {
          status: 413,
          code: 'payload_too_large',
          message: 'The request body is larger than the 16 KiB limit.',
        },
      },
      ...['text/plain', 'application/x-www-form-urlencoded', 'application/merge-patch'].map((type) => ({
        title: `Content-Type ${type}`,
        send: () => patchPet(server, pet.id, { name: 'Typed' }, { 'content-type': type }),
        expected: {
          status: 415,
          code: 'unsupported_media_type',
          message: `The request body must be sent as Content-Type: ${MERGE_PATCH} or application/json.`,
        },
      })),
      {
        title: 'a charset other than UTF-8',
        send: () =>
          patchPet(server, pet.id, { name: 'Typed' }, { 'content-type': `${MERGE_PATCH}; charset=iso-8859-1` }),
        expected: {
          status: 415,
          code: 'unsupported_media_type',
          message:
            'The request body must be UTF-8 JSON; charset=iso-8859-1 is not supported. Send Content-Type: ' +
            `${MERGE_PATCH} (charset=utf-8 may be added).`,
        },
      },
      ...['abc', '"unterminated', '*, "1.1"', 'W/ "1.1"', '"1.1" "1.2"', '1.1'].map((value) => ({
        title: `If-Match ${value}`,
        send: () => patchPet(server, pet.id, { name: 'Conditional' }, { 'if-match': value }),
        expected: invalid('header/if-match', ENTITY_TAG_LIST),
      })),
      ...[
        ['0', 'must be >= 1'],
        ['abc', 'must be integer'],
        ['1.0', 'must be integer'],
      ].map(([id = '', message]) => ({
        title: `petId ${id}`,
        send: () => patchPet(server, id, { name: 'Elsewhere' }),
        expected: invalid('path/petId', message ?? ''),
      })),
      {
        title: 'petId 2^53',
        send: () => patchPet(server, '9007199254740992', { name: 'Elsewhere' }),
        expected: {
          status: 400,
          code: 'invalid_request',
          message: 'Invalid request: path/petId must be <= 9007199254740991',
          details: [{ path: 'path/petId', message: 'must be <= 9007199254740991' }],
        },
      },
      {
        title: 'a query parameter',
        send: () =>
          server.request(`/v1/pets/${pet.id}?name=Query`, {
            method: 'PATCH',
            headers: { 'content-type': MERGE_PATCH },
            body: '{"name":"Query"}',
          }),
        expected: invalid('query/name', 'is not a known parameter'),
      },
    ]

    for (const { title, send, expected } of cases) {
      it(title, async () => {
        await assertError(await send(), expected)
        assert.deepEqual(await storedPet(server, pet.id), { ...pet, version: 1, deleted: false })
        assert.equal((await server.store.admin.selectFrom('pets').select('id').execute()).length, petCount)
      })
    }
  })

  describe('with an Idempotency-Key', () => {
    it('changes the pet once and replays the first answer, ETag included', async () => {
      const pet = await addPet(server)
      const send = () =>
        patchPet(server, pet.id, { name: 'Once' }, { 'idempotency-key': 'patch-once', 'if-match': etagOf(pet.id, 1) })
      const first = await send()
      assert.equal(first.status, 200)
      const text = await first.text()
      const replay = await send()
      assert.equal(replay.status, 200)
      assert.equal(replay.headers.get('idempotent-replayed'), 'true')
      assert.equal(replay.headers.get('etag'), etagOf(pet.id, 2))
      assert.equal(first.headers.get('etag'), etagOf(pet.id, 2))
      assert.equal(await replay.text(), text)
      assert.equal((await storedPet(server, pet.id))?.version, 2)
    })

    it('treats another If-Match, or another patch, under the same key as another request (422)', async () => {
      const pet = await addPet(server)
      assert.equal(
        (
          await patchPet(
            server,
            pet.id,
            { name: 'Keyed' },
            { 'idempotency-key': 'patch-reused', 'if-match': etagOf(pet.id, 1) },
          )
        ).status,
        200,
      )
      await assertError(
        await patchPet(
          server,
          pet.id,
          { name: 'Keyed' },
          { 'idempotency-key': 'patch-reused', 'if-match': etagOf(pet.id, 2) },
        ),
        IDEMPOTENCY_KEY_REUSED,
      )
      await assertError(
        await patchPet(server, pet.id, { name: 'Keyed' }, { 'idempotency-key': 'patch-reused' }),
        IDEMPOTENCY_KEY_REUSED,
      )
      await assertError(
        await patchPet(
          server,
          pet.id,
          { name: 'Other' },
          { 'idempotency-key': 'patch-reused', 'if-match': etagOf(pet.id, 1) },
        ),
        IDEMPOTENCY_KEY_REUSED,
      )
      assert.deepEqual(await readPet(server, pet.id), { ...pet, name: 'Keyed' })
    })

    it('stores a 412 and replays it, even once the pet is at the version the request named', async () => {
      const pet = await addPet(server)
      const send = () =>
        patchPet(server, pet.id, { categoryId: 42 }, { 'idempotency-key': 'patch-412', 'if-match': etagOf(pet.id, 2) })
      const expected = {
        status: 412,
        code: 'precondition_failed',
        message:
          `If-Match does not name the current ETag of pet ${pet.id}, ${etagOf(pet.id, 1)}: it was changed since it ` +
          'was read. Nothing was changed; read it again before retrying.',
      }
      await assertError(await send(), expected, { etag: etagOf(pet.id, 1), 'idempotent-replayed': null })
      assert.equal((await patchPet(server, pet.id, { name: 'Moved on' })).status, 200)
      await assertError(await send(), expected, { etag: etagOf(pet.id, 1), 'idempotent-replayed': 'true' })
      assert.deepEqual(await storedPet(server, pet.id), { ...pet, name: 'Moved on', version: 2, deleted: false })
    })
  })
})
