// Bearer authentication over real HTTP (RFC 6750): what a client without a valid key sees, which header forms
// are accepted, that authentication comes before validation and routing, and that keys never reach the logs.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { issueApiKey } from '../../../src/keys/issue-key.js'
import { revokeKey } from '../../../src/keys/issue-key.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

/** A static key using characters outside RFC 6750's b64token: PETSTORE_API_KEYS allows them. */
const SYMBOL_KEY = 'p@ss!w0rd#static$key%2025'
const WRONG_KEY = 'pst_wrongwrongwrongwrongwrongwrongwrongwrong1'

const MISSING = {
  challenge: 'Bearer realm="petstore"',
  body: { code: 'unauthorized', message: 'An API key is required: send Authorization: Bearer <key>.', status: 401 },
}
const INVALID = {
  challenge: 'Bearer realm="petstore", error="invalid_token", error_description="The API key is not valid"',
  body: { code: 'unauthorized', message: 'The API key is not valid.', status: 401 },
}

async function assertUnauthorized(response: Response, expected: typeof MISSING): Promise<void> {
  assert.equal(response.status, 401)
  assert.equal(response.headers.get('www-authenticate'), expected.challenge)
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
  assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
  // A client without a valid key learns nothing about the resource, not even that it is deprecated.
  assert.equal(response.headers.get('deprecation'), null)
  assert.equal(response.headers.get('allow'), null)
  assert.deepEqual(await response.json(), expected.body)
}

describe('bearer authentication', () => {
  let server: TestServer
  let storedKey: string
  let petId: number

  before(async () => {
    server = await startTestServer({ env: { PETSTORE_API_KEYS: `${TEST_API_KEY},${SYMBOL_KEY}`, LOG_LEVEL: 'trace' } })
    storedKey = (await issueApiKey(server.store, 'auth-test')).key
    const created = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
    assert.equal(created.status, 201)
    petId = ((await created.json()) as { id: number }).id
  })
  after(() => server.close())

  /** A request with exactly this Authorization header (or none). */
  function withAuthorization(
    path: string,
    authorization: string | undefined,
    init: RequestInit = {},
  ): Promise<Response> {
    const headers = new Headers(init.headers)
    if (authorization !== undefined) headers.set('authorization', authorization)
    return server.request(path, { ...init, auth: false, headers })
  }

  it('answers 401 with the realm and the Error body when the header is missing', async () => {
    await assertUnauthorized(await withAuthorization('/v1/pets', undefined), MISSING)
  })

  it('treats an empty Authorization header as missing', async () => {
    await assertUnauthorized(await withAuthorization('/v1/pets', ''), MISSING)
  })

  it('answers 401 with error="invalid_token" for a wrong key', async () => {
    await assertUnauthorized(await withAuthorization('/v1/pets', `Bearer ${WRONG_KEY}`), INVALID)
    // Keys are compared exactly: a different case is a different key.
    await assertUnauthorized(await withAuthorization('/v1/pets', `Bearer ${TEST_API_KEY.toUpperCase()}`), INVALID)
    await assertUnauthorized(await withAuthorization('/v1/pets', `Bearer ${storedKey.slice(0, -1)}`), INVALID)
  })

  for (const [label, header] of [
    ['the scheme without a token', 'Bearer'],
    ['two tokens', 'Bearer abc def'],
    ['a valid key followed by another token', `Bearer ${TEST_API_KEY} extra`],
    ['a comma-separated list of keys', `Bearer ${TEST_API_KEY},${SYMBOL_KEY}`],
  ] as const) {
    it(`answers 401 with error="invalid_token" for a malformed Bearer credential: ${label}`, async () => {
      await assertUnauthorized(await withAuthorization('/v1/pets', header), INVALID)
    })
  }

  // RFC 6750 section 3.1: a request that uses another authentication method gets the challenge without an error
  // code, as one without credentials does.
  for (const [label, header] of [
    ['another scheme', 'Basic xyz'],
    ['another scheme carrying a valid key', `Basic ${TEST_API_KEY}`],
    ['a valid key without the scheme', TEST_API_KEY],
    ['a scheme glued to the key', `Bearer${TEST_API_KEY}`],
  ] as const) {
    it(`answers 401 as to a request without a key for another scheme: ${label}`, async () => {
      await assertUnauthorized(await withAuthorization('/v1/pets', header), MISSING)
    })
  }

  for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
    it(`accepts the scheme written as ${scheme}`, async () => {
      const response = await withAuthorization(`/v1/pets/${petId}`, `${scheme} ${TEST_API_KEY}`)
      assert.equal(response.status, 200)
      assert.deepEqual(await response.json(), { id: petId, name: 'Rex', categoryId: 1, status: 'available' })
    })
  }

  it('accepts more than one space between scheme and key', async () => {
    const response = await withAuthorization('/v1/pets', `Bearer   ${TEST_API_KEY}`)
    assert.equal(response.status, 200)
  })

  it('accepts every static key from PETSTORE_API_KEYS, including one with symbols', async () => {
    for (const key of [TEST_API_KEY, SYMBOL_KEY]) {
      const response = await withAuthorization(`/v1/pets/${petId}`, `Bearer ${key}`)
      assert.equal(response.status, 200, `key ${key}`)
      assert.deepEqual(await response.json(), { id: petId, name: 'Rex', categoryId: 1, status: 'available' })
    }
  })

  it('accepts a stored key and refuses it as soon as it is revoked', async () => {
    const { key, row } = await issueApiKey(server.store, 'to-revoke')
    const before = await withAuthorization(`/v1/pets/${petId}`, `Bearer ${key}`)
    assert.equal(before.status, 200)
    assert.deepEqual(await before.json(), { id: petId, name: 'Rex', categoryId: 1, status: 'available' })

    await revokeKey(server.store, row.id, new Date().toISOString())
    await assertUnauthorized(await withAuthorization(`/v1/pets/${petId}`, `Bearer ${key}`), INVALID)
  })

  it('tells keys apart when one connection carries several in turn', async () => {
    // fetch keeps the connection alive, so these requests share one, as they would behind a proxy.
    for (const [key, status] of [
      [TEST_API_KEY, 200],
      [WRONG_KEY, 401],
      [SYMBOL_KEY, 200],
      [WRONG_KEY, 401],
      [storedKey, 200],
      [TEST_API_KEY, 200],
    ] as const) {
      const response = await withAuthorization(`/v1/pets/${petId}`, `Bearer ${key}`)
      assert.equal(response.status, status, `key ${key}`)
      if (status === 401) await assertUnauthorized(response, INVALID)
      else assert.deepEqual(await response.json(), { id: petId, name: 'Rex', categoryId: 1, status: 'available' })
    }
  })

  describe('comes before validation, lookup and routing', () => {
    // With a valid key each of these requests answers something other than 401, so a 401 without one
    // proves that authentication ran first.
    const requests: { label: string; path: string; init: RequestInit; statusWithKey: number }[] = [
      { label: 'GET a pet that does not exist', path: '/v1/pets/999999', init: {}, statusWithKey: 404 },
      { label: 'GET a pet with an invalid id', path: '/v1/pets/abc', init: {}, statusWithKey: 400 },
      {
        label: 'POST an invalid body',
        path: '/v1/pets',
        init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 5 }) },
        statusWithKey: 400,
      },
      {
        label: 'POST broken JSON',
        path: '/v1/pets',
        init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' },
        statusWithKey: 400,
      },
      {
        label: 'POST a body that is not JSON',
        path: '/v1/pets',
        init: { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'Rex' },
        statusWithKey: 415,
      },
      { label: 'GET with limit=0', path: '/v1/pets?limit=0', init: {}, statusWithKey: 400 },
      { label: 'DELETE the collection', path: '/v1/pets', init: { method: 'DELETE' }, statusWithKey: 405 },
      { label: 'PUT an existing pet', path: '/v1/pets/1', init: { method: 'PUT' }, statusWithKey: 405 },
      { label: 'GET an unknown route under /v1', path: '/v1/unknown', init: {}, statusWithKey: 404 },
    ]

    for (const { label, path, init, statusWithKey } of requests) {
      it(`${label}: ${statusWithKey} with a key, 401 without one or with a wrong one`, async () => {
        const withKey = await withAuthorization(path, `Bearer ${TEST_API_KEY}`, init)
        assert.equal(withKey.status, statusWithKey)
        await withKey.arrayBuffer()

        await assertUnauthorized(await withAuthorization(path, undefined, init), MISSING)
        await assertUnauthorized(await withAuthorization(path, `Bearer ${WRONG_KEY}`, init), INVALID)
      })
    }

    it('creates nothing when an unauthenticated POST carries a valid body', async () => {
      const listBefore = await server.request('/v1/pets?limit=100')
      const petsBefore = await listBefore.json()
      const response = await withAuthorization('/v1/pets', undefined, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Sneaky', categoryId: 1 }),
      })
      await assertUnauthorized(response, MISSING)
      const listAfter = await server.request('/v1/pets?limit=100')
      assert.deepEqual(await listAfter.json(), petsBefore)
    })
  })

  it('serves GET /v1/openapi.json without a key', async () => {
    const response = await withAuthorization('/v1/openapi.json', undefined)
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
    // The committed document, but for the servers, which name the instance it was fetched from.
    const committed = JSON.parse(readFileSync('openapi/petstore-v1.json', 'utf8')) as { servers: unknown }
    const document = (await response.json()) as { servers: unknown }
    assert.deepEqual({ ...document, servers: committed.servers }, committed)
  })

  it('never writes a key to the logs, even at trace level', async () => {
    const requestIds: string[] = []
    for (const authorization of [
      `Bearer ${TEST_API_KEY}`,
      `Bearer ${storedKey}`,
      `Bearer ${SYMBOL_KEY}`,
      `Bearer ${WRONG_KEY}`,
      `Basic ${WRONG_KEY}`,
    ]) {
      const response = await withAuthorization(`/v1/pets/${petId}`, authorization)
      await response.arrayBuffer()
      requestIds.push(response.headers.get('x-request-id') ?? '')
    }
    const invalid = await withAuthorization('/v1/pets', `Bearer ${WRONG_KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: WRONG_KEY, categoryId: 1 }),
    })
    await assertUnauthorized(invalid, INVALID)
    requestIds.push(invalid.headers.get('x-request-id') ?? '')

    // The requests are logged, with their ids, as each completes: the check below looks at real log lines. Waits
    // for them rather than for a fixed time; the test's time-out bounds the wait.
    const logged = () => requestIds.every((requestId) => server.logs.join('').includes(requestId))
    while (!logged()) await new Promise((resolve) => setTimeout(resolve, 10))
    const logs = server.logs.join('')
    for (const key of [TEST_API_KEY, storedKey, SYMBOL_KEY, WRONG_KEY]) {
      assert.ok(!logs.includes(key), `a key appears in the logs: ${key}`)
    }
  })
})
