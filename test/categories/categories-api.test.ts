// The category operations over HTTP: every status each answers, with exact bodies and headers.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  categoryNotFound,
  categoryPath,
  createCategory,
  deleteCategory,
  nameTaken,
  putCategory,
  type Category,
} from '../helpers/categories.js'
import { assertError, IDEMPOTENCY_KEY_REUSED } from '../helpers/error-assert.js'
import { collectPages, nextLink } from '../helpers/link.js'
import { addPet } from '../helpers/orders.js'
import { deletePet, VISIBLE_NAME_RULE } from '../helpers/pets.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const invalid = (message: string, details: { path: string; message: string }[]) => ({
  status: 400,
  code: 'invalid_request',
  message,
  details,
})

describe('category records', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('creates with a new id above every category id and every categoryId of a pet: 201, Location, ETag', async () => {
    await server.request('/v1/pets', { json: { name: 'Grouped', categoryId: 500 } })
    const response = await server.request('/v1/categories', { json: { name: 'Dogs' } })
    assert.equal(response.status, 201)
    assert.deepEqual(await response.json(), { id: 501, name: 'Dogs' })
    assert.equal(response.headers.get('location'), `${server.baseUrl}/v1/categories/501`)
    assert.equal(response.headers.get('etag'), '"501.1"')
    const next = await createCategory(server, 'Cats')
    assert.deepEqual(next, { id: 502, name: 'Cats', etag: '"502.1"' })
  })

  it('never gives a deleted id again', async () => {
    const newest = await createCategory(server, 'Short-lived')
    assert.equal((await deleteCategory(server, newest.id)).status, 204)
    const after = await createCategory(server, 'After')
    assert.equal(after.id, newest.id + 1)
  })

  it('refuses a name another category has, ignoring case: 409', async () => {
    const holder = await createCategory(server, 'Straße')
    await assertError(await server.request('/v1/categories', { json: { name: 'STRASSE' } }), nameTaken(holder))
    await assertError(await putCategory(server, 9000, 'straße'), nameTaken(holder))
    const other = await createCategory(server, 'Lane')
    await assertError(await putCategory(server, other.id, 'strasse'), nameTaken(holder))
    // Capital sharp s (U+1E9E) is folded as far as ß and SS are.
    await assertError(await server.request('/v1/categories', { json: { name: 'STRA\u1E9EE' } }), nameTaken(holder))
    await assertError(await putCategory(server, other.id, 'Stra\u1E9Ee'), nameTaken(holder))
    // A category may change the case of its own name.
    const renamed = await putCategory(server, holder.id, 'STRASSE')
    assert.equal(renamed.status, 200)
    assert.deepEqual(await renamed.json(), { id: holder.id, name: 'STRASSE' })
  })

  it('refuses a name equal ignoring case once case mapping composes it anew: 409', async () => {
    // Capital iota with diaeresis (U+03AA) and a combining acute lower-case to ϊ + ◌́, which is ΐ (U+0390);
    // ß then a combining acute upper-cases to S + Ś.
    const iota = await createCategory(server, '\u0390')
    await assertError(await server.request('/v1/categories', { json: { name: '\u03AA\u0301' } }), nameTaken(iota))
    await assertError(await putCategory(server, 9001, '\u03CA\u0301'), nameTaken(iota))
    const sharp = await createCategory(server, 'Fu\u00DF\u0301')
    await assertError(await server.request('/v1/categories', { json: { name: 'FUS\u015A' } }), nameTaken(sharp))
    await assertError(await putCategory(server, 9001, 'fus\u015B'), nameTaken(sharp))
  })

  it('refuses a name equal ignoring case whose capital letter carries its marks apart: 409', async () => {
    // ᾷ (U+1FB7, alpha with perispomeni and ypogegrammeni) title-cases to ᾼ (U+1FBC) and a combining perispomeni,
    // and upper-cases to Α, ◌͂, Ι: the capital's iota must not take the perispomeni.
    const alpha = await createCategory(server, '\u1FB7')
    await assertError(await server.request('/v1/categories', { json: { name: '\u1FBC\u0342' } }), nameTaken(alpha))
    await assertError(await putCategory(server, 9002, '\u0391\u0342\u0399'), nameTaken(alpha))
  })

  it('gets a category with its ETag; 304 when If-None-Match names it, 412 when If-Match does not', async () => {
    const created = await createCategory(server, 'Birds')
    const response = await server.request(categoryPath(created.id))
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), { id: created.id, name: 'Birds' })
    assert.equal(response.headers.get('etag'), created.etag)
    for (const ifNoneMatch of [created.etag, `W/${created.etag}`, '*', `"1.1", ${created.etag}`]) {
      for (const method of ['GET', 'HEAD']) {
        const unchanged = await server.request(categoryPath(created.id), {
          method,
          headers: { 'if-none-match': ifNoneMatch },
        })
        assert.equal(unchanged.status, 304, `${method} ${ifNoneMatch}`)
        assert.equal(await unchanged.text(), '')
        assert.equal(unchanged.headers.get('etag'), created.etag)
        // A 304 carries the 200's length or none (RFC 9110 section 8.6), not HEAD's own 0.
        assert.equal(unchanged.headers.get('content-length'), null, `${method} ${ifNoneMatch}`)
      }
    }
    const changed = await server.request(categoryPath(created.id), { headers: { 'if-none-match': '"1.1"' } })
    assert.equal(changed.status, 200)
    // If-Match on a read: 412 with the current ETag unless it names it (strong comparison) or is *.
    const stale = await server.request(categoryPath(created.id), { headers: { 'if-match': '"1.1"' } })
    assert.equal(stale.headers.get('etag'), created.etag)
    await assertError(stale, {
      status: 412,
      code: 'precondition_failed',
      message:
        `If-Match does not name the current ETag of category ${created.id}, ${created.etag}: it was changed ` +
        'since that ETag was read.',
    })
    // The current tag sent weak never holds either, and the answer says why.
    const weak = await server.request(categoryPath(created.id), { headers: { 'if-match': `W/${created.etag}` } })
    assert.equal(weak.headers.get('etag'), created.etag)
    await assertError(weak, {
      status: 412,
      code: 'precondition_failed',
      message:
        `If-Match names the current ETag of category ${created.id} as a weak tag, W/${created.etag}; If-Match ` +
        `compares strongly, so a weak tag never holds: send the ETag as given, ${created.etag}.`,
    })
    for (const ifMatch of [created.etag, '*']) {
      const held = await server.request(categoryPath(created.id), { headers: { 'if-match': ifMatch } })
      assert.equal(held.status, 200, ifMatch)
      assert.deepEqual(await held.json(), { id: created.id, name: 'Birds' })
    }
    await assertError(await server.request(categoryPath(987654)), categoryNotFound(987654))
  })

  it('puts: 201 creating with that id (Location, ETag), 200 renaming (new ETag), 200 unchanged for the \
same name', async () => {
    // The category deleted above was at version 1: every category created since starts above it, at 2.
    const created = await putCategory(server, 7, 'Fish')
    assert.equal(created.status, 201)
    assert.deepEqual(await created.json(), { id: 7, name: 'Fish' })
    assert.equal(created.headers.get('location'), `${server.baseUrl}/v1/categories/7`)
    assert.equal(created.headers.get('etag'), '"7.2"')
    const renamed = await putCategory(server, 7, 'Fishes')
    assert.equal(renamed.status, 200)
    assert.deepEqual(await renamed.json(), { id: 7, name: 'Fishes' })
    assert.equal(renamed.headers.get('etag'), '"7.3"')
    assert.equal(renamed.headers.get('location'), null)
    const same = await putCategory(server, 7, 'Fishes')
    assert.equal(same.status, 200)
    assert.equal(same.headers.get('etag'), '"7.3"')
  })

  it('puts conditionally: If-Match and If-None-Match: * answer 412 when they do not hold', async () => {
    await assertError(await putCategory(server, 8, 'Reptiles', { 'if-match': '"8.2"' }), {
      status: 412,
      code: 'precondition_failed',
      message: 'If-Match cannot hold: no category has id 8. Nothing was changed.',
    })
    const created = await putCategory(server, 8, 'Reptiles', { 'if-none-match': '*' })
    assert.equal(created.status, 201)
    await assertError(
      await putCategory(server, 8, 'Lizards', { 'if-none-match': '*' }),
      {
        status: 412,
        code: 'precondition_failed',
        message: 'If-None-Match: * cannot hold: category 8 exists already, at "8.2". Nothing was changed.',
      },
      { etag: '"8.2"' },
    )
    await assertError(
      await putCategory(server, 8, 'Lizards', { 'if-match': '"8.7"' }),
      {
        status: 412,
        code: 'precondition_failed',
        message:
          'If-Match does not name the current ETag of category 8, "8.2": it was changed since it was read. ' +
          'Nothing was changed; read it again before retrying.',
      },
      { etag: '"8.2"' },
    )
    const renamed = await putCategory(server, 8, 'Lizards', { 'if-match': '"8.2"' })
    assert.equal(renamed.status, 200)
    assert.equal(renamed.headers.get('etag'), '"8.3"')
    assert.deepEqual((await server.request(categoryPath(8)).then((r) => r.json())) as Category, {
      id: 8,
      name: 'Lizards',
    })
  })

  it('counts If-None-Match in what makes a put under an Idempotency-Key the same request', async () => {
    // A conditional put that failed, retried without the condition: another request, not the stored 412.
    const created = await createCategory(server, 'Ferrets')
    const ferrets = { id: created.id, name: created.name }
    const conditional = { 'idempotency-key': 'put-conditional', 'if-none-match': '*' }
    const exists = {
      status: 412,
      code: 'precondition_failed',
      message:
        `If-None-Match: * cannot hold: category ${ferrets.id} exists already, at ${created.etag}. ` +
        'Nothing was changed.',
    }
    await assertError(await putCategory(server, ferrets.id, 'Polecats', conditional), exists, {
      etag: created.etag,
      'idempotent-replayed': null,
    })
    await assertError(await putCategory(server, ferrets.id, 'Polecats', conditional), exists, {
      etag: created.etag,
      'idempotent-replayed': 'true',
    })
    await assertError(
      await putCategory(server, ferrets.id, 'Polecats', { 'idempotency-key': 'put-conditional' }),
      IDEMPOTENCY_KEY_REUSED,
    )
    // And the other way: an unconditional put that created, retried with If-None-Match: *.
    const plain = { 'idempotency-key': 'put-plain' }
    assert.equal((await putCategory(server, 9100, 'Stoats', plain)).status, 201)
    await assertError(
      await putCategory(server, 9100, 'Stoats', { ...plain, 'if-none-match': '*' }),
      IDEMPOTENCY_KEY_REUSED,
    )
    // The same value in the other condition is another condition: If-Match: * where the key was first sent with
    // If-None-Match: * must not be given the stored 412.
    await assertError(
      await putCategory(server, ferrets.id, 'Polecats', { 'idempotency-key': 'put-conditional', 'if-match': '*' }),
      IDEMPOTENCY_KEY_REUSED,
    )
    assert.deepEqual(await server.request(categoryPath(ferrets.id)).then((r) => r.json()), ferrets)
  })

  it('deletes: 204, then 404; 409 while a pet uses it, 204 once the pet is deleted; 412 on a stale \
If-Match', async () => {
    const used = await createCategory(server, 'Used')
    const petResponse = await server.request('/v1/pets', { json: { name: 'Member', categoryId: used.id } })
    const pet = (await petResponse.json()) as { id: number }
    await assertError(await deleteCategory(server, used.id), {
      status: 409,
      code: 'conflict',
      message:
        `Category ${used.id} is used by pet ${pet.id} (and maybe others); move or delete its pets first. Nothing ` +
        'was changed.',
    })
    await assertError(
      await deleteCategory(server, used.id, { 'if-match': `"${used.id}.9"` }),
      {
        status: 412,
        code: 'precondition_failed',
        message:
          `If-Match does not name the current ETag of category ${used.id}, ${used.etag}: it was changed since it ` +
          'was read. Nothing was changed; read it again before retrying.',
      },
      { etag: used.etag },
    )
    assert.equal((await deletePet(server, pet.id)).status, 204)
    const deleted = await deleteCategory(server, used.id, { 'if-match': used.etag })
    assert.equal(deleted.status, 204)
    assert.equal(await deleted.text(), '')
    await assertError(await server.request(categoryPath(used.id)), categoryNotFound(used.id))
    await assertError(await deleteCategory(server, used.id), categoryNotFound(used.id))
    await assertError(await deleteCategory(server, used.id, { 'if-match': '*' }), {
      status: 412,
      code: 'precondition_failed',
      message: `If-Match cannot hold: no category has id ${used.id}. Nothing was changed.`,
    })
    // Pets keep any categoryId, with or without a record.
    const orphan = await addPet(server)
    assert.equal((await server.request('/v1/pets', { json: { name: 'Orphan', categoryId: used.id } })).status, 201)
    assert.ok(orphan.id > 0)
  })

  it('lists in ascending id order, paged with a signed cursor and Link: rel="next"', async () => {
    const all = await collectPages<Category>((path) => server.request(path), '/v1/categories?limit=2')
    const ids = all.map((category) => category.id)
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    )
    const first = await server.request('/v1/categories?limit=2')
    const link = nextLink(first)
    assert.ok(link?.startsWith(`${server.baseUrl}/v1/categories?limit=2&cursor=`), link)
    const foreign = await server.request('/v1/pets?limit=1')
    const petCursor = new URL(nextLink(foreign) ?? '').searchParams.get('cursor')
    await assertError(await server.request(`/v1/categories?cursor=${petCursor}`), {
      ...invalid('The cursor is not valid: use the Link header of a previous page unchanged.', [
        { path: 'query/cursor', message: 'is not a cursor this service issued' },
      ]),
    })
  })

  it('refuses bad input with 400 in the Error body', async () => {
    const cases: [string, RequestInit & { json?: unknown }, ReturnType<typeof invalid>][] = [
      [
        '/v1/categories',
        { json: { name: 'Ids', id: 4 } },
        invalid('Invalid request: body/id is not allowed', [{ path: 'body/id', message: 'is not allowed' }]),
      ],
      [
        '/v1/categories',
        { json: { name: 5 } },
        invalid('Invalid request: body/name must be string', [{ path: 'body/name', message: 'must be string' }]),
      ],
      [
        '/v1/categories',
        { json: { name: 'x'.repeat(101) } },
        invalid('Invalid request: body/name must NOT have more than 100 characters', [
          { path: 'body/name', message: 'must NOT have more than 100 characters' },
        ]),
      ],
      [
        '/v1/categories',
        { json: { name: ' \u200b ' } },
        invalid(`Invalid request: body/name ${VISIBLE_NAME_RULE}`, [{ path: 'body/name', message: VISIBLE_NAME_RULE }]),
      ],
      [
        '/v1/categories/5',
        { method: 'PUT', json: { name: 'Conditional' }, headers: { 'if-none-match': '"5.1"' } },
        invalid('Invalid request: header/if-none-match must be "*"', [
          { path: 'header/if-none-match', message: 'must be "*"' },
        ]),
      ],
      [
        '/v1/categories/0',
        {},
        invalid('Invalid request: path/categoryId must be >= 1', [
          { path: 'path/categoryId', message: 'must be >= 1' },
        ]),
      ],
      [
        '/v1/categories/abc',
        { method: 'DELETE' },
        invalid('Invalid request: path/categoryId must be integer', [
          { path: 'path/categoryId', message: 'must be integer' },
        ]),
      ],
      [
        '/v1/categories?limit=101',
        {},
        invalid('Invalid request: query/limit must be <= 100', [{ path: 'query/limit', message: 'must be <= 100' }]),
      ],
      [
        '/v1/categories?limit=0',
        {},
        invalid('Invalid request: query/limit must be >= 1', [{ path: 'query/limit', message: 'must be >= 1' }]),
      ],
    ]
    for (const [path, init, expected] of cases) await assertError(await server.request(path, init), expected)
  })
})
