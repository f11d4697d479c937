// Idempotency-Key on POST /v1/pets: replays, mismatches, scoping, concurrent duplicates, validation, expiry and
// the takeover of a key whose request died, on the store of the pass (SQLite or PostgreSQL).
import { staticKeyId } from '../../src/keys/static-key-id.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { requestFingerprint } from '../../src/idempotency/fingerprint.js'
import { purgeExpiredKeys } from '../../src/idempotency/purge.js'
import { assertError, assertRawError, IDEMPOTENCY_KEY_REUSED } from '../helpers/error-assert.js'
import { rawExchange } from '../helpers/raw-http.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

const OTHER_API_KEY = 'second-test-key-0123456789'
const HOUR_MS = 3_600_000

describe('Idempotency-Key on POST /v1/pets', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { PETSTORE_API_KEYS: `${TEST_API_KEY},${OTHER_API_KEY}` } })
  })
  after(() => server.close())

  const createPet = (key: string | undefined, body: unknown, auth: string = TEST_API_KEY) =>
    server.request('/v1/pets', { json: body, auth, headers: key === undefined ? {} : { 'idempotency-key': key } })

  async function petsNamed(name: string): Promise<number> {
    const row = await server.store.admin
      .selectFrom('pets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('name', '=', name)
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  const storedKey = (key: string) =>
    server.store.admin.selectFrom('idempotency_keys').selectAll().where('idempotency_key', '=', key).execute()

  it('stores the first response with its effect and replays it exactly, creating nothing more', async () => {
    const first = await createPet('replay-1', { name: 'Replay', categoryId: 3 })
    assert.equal(first.status, 201)
    assert.equal(first.headers.get('idempotent-replayed'), null)
    const text = await first.text()
    const pet = JSON.parse(text)
    assert.deepEqual(pet, { id: pet.id, name: 'Replay', categoryId: 3, status: 'available' })
    assert.equal(first.headers.get('location'), `${server.baseUrl}/v1/pets/${pet.id}`)

    // The same request spelled differently (key order, the default written out) is the same request.
    for (const body of [
      { name: 'Replay', categoryId: 3 },
      { status: 'available', categoryId: 3, name: 'Replay' },
    ]) {
      const replay = await createPet('replay-1', body)
      assert.equal(replay.status, 201)
      assert.equal(replay.headers.get('idempotent-replayed'), 'true')
      assert.equal(replay.headers.get('location'), first.headers.get('location'))
      assert.equal(replay.headers.get('etag'), first.headers.get('etag'))
      assert.equal(replay.headers.get('content-type'), 'application/json; charset=utf-8')
      assert.equal(await replay.text(), text)
    }
    assert.equal(await petsNamed('Replay'), 1)

    const [row] = await storedKey('replay-1')
    assert.ok(row)
    assert.deepEqual(
      {
        state: row.state,
        status: row.response_status,
        body: row.response_body,
        headers: JSON.parse(row.response_headers ?? ''),
      },
      {
        state: 'completed',
        status: 201,
        body: text,
        headers: { location: first.headers.get('location'), etag: `"${pet.id}.1"` },
      },
    )
    assert.equal(row.api_key_id, staticKeyId(TEST_API_KEY))
    assert.match(row.request_fingerprint, /^[0-9a-f]{64}$/)
    assert.ok(Date.parse(row.expires_at) - Date.now() > 23.9 * HOUR_MS, `kept at least 24 hours: ${row.expires_at}`)
  })

  it('answers 422 to the same key with a different body or operation, and changes nothing', async () => {
    assert.equal((await createPet('mismatch-1', { name: 'Mismatch', categoryId: 1 })).status, 201)
    await assertError(await createPet('mismatch-1', { name: 'Mismatch', categoryId: 2 }), IDEMPOTENCY_KEY_REUSED, {
      'idempotent-replayed': null,
    })
    await assertError(await createPet('mismatch-1', { name: 'Other', categoryId: 1 }), IDEMPOTENCY_KEY_REUSED)
    await assertError(
      await server.request('/v1/store/orders', { json: { petId: 1 }, headers: { 'idempotency-key': 'mismatch-1' } }),
      IDEMPOTENCY_KEY_REUSED,
    )
    assert.equal(await petsNamed('Mismatch'), 1)
    assert.equal(await petsNamed('Other'), 0)
  })

  it('scopes keys to the API key: the same key from another API key is a new request', async () => {
    const mine = await (await createPet('shared-key', { name: 'Scoped', categoryId: 1 })).json()
    const theirs = await createPet('shared-key', { name: 'Scoped', categoryId: 1 }, OTHER_API_KEY)
    assert.equal(theirs.status, 201)
    assert.equal(theirs.headers.get('idempotent-replayed'), null)
    assert.notEqual((await theirs.json()).id, mine.id)
    // …where it is held as the first API key holds its own: another body under it is refused.
    await assertError(
      await createPet('shared-key', { name: 'Scoped elsewhere', categoryId: 9 }, OTHER_API_KEY),
      IDEMPOTENCY_KEY_REUSED,
    )
    assert.equal(await petsNamed('Scoped'), 2)
    assert.equal((await storedKey('shared-key')).length, 2)
  })

  it('runs 20 concurrent duplicates once: the others are 409 in flight or replays of the same response', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => createPet('concurrent-1', { name: 'Concurrent', categoryId: 5 })),
    )
    const created = responses.filter((response) => response.status === 201)
    assert.ok(created.length >= 1, 'one of them ran')
    const bodies = new Set(await Promise.all(created.map((response) => response.text())))
    assert.equal(bodies.size, 1, 'every 201 is the same response')
    assert.equal(
      created.filter((response) => response.headers.get('idempotent-replayed') === null).length,
      1,
      'exactly one was not a replay',
    )
    for (const response of responses.filter((candidate) => candidate.status !== 201)) {
      await assertError(
        response,
        {
          status: 409,
          code: 'idempotency_key_in_flight',
          message: 'A request with this Idempotency-Key is still being processed; retry later to get its response.',
        },
        { 'retry-after': '1' },
      )
    }
    assert.equal(await petsNamed('Concurrent'), 1)
    const later = await createPet('concurrent-1', { name: 'Concurrent', categoryId: 5 })
    assert.equal(later.headers.get('idempotent-replayed'), 'true')
    assert.equal(await later.text(), [...bodies][0])
  })

  it('refuses a key that is empty, longer than 255 characters or not visible ASCII with 400, and \
stores nothing', async () => {
    const invalid = (message: string) => ({
      status: 400,
      code: 'invalid_request',
      message: `Invalid request: header/idempotency-key ${message}`,
      details: [{ path: 'header/idempotency-key', message }],
    })
    await assertError(
      await createPet('', { name: 'Invalid key', categoryId: 1 }),
      invalid('must NOT have fewer than 1 characters'),
    )
    await assertError(
      await createPet('k'.repeat(256), { name: 'Invalid key', categoryId: 1 }),
      invalid('must NOT have more than 255 characters'),
    )
    await assertError(
      await createPet('two words', { name: 'Invalid key', categoryId: 1 }),
      invalid('must be visible ASCII characters only, without spaces'),
    )
    const body = JSON.stringify({ name: 'Invalid key', categoryId: 1 })
    const raw = await rawExchange(
      server.baseUrl,
      Buffer.concat([
        Buffer.from(
          `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nContent-Type: ` +
            `application/json\r\n`,
        ),
        Buffer.from('Idempotency-Key: cl\xe9\r\n', 'latin1'),
        Buffer.from(`Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`),
      ]),
    )
    assertRawError(raw, invalid('must be visible ASCII characters only, without spaces'))
    assert.equal(await petsNamed('Invalid key'), 0)

    const longest = 'k'.repeat(255)
    assert.equal((await createPet(longest, { name: 'Longest key', categoryId: 1 })).status, 201)
    assert.equal(
      (await createPet(longest, { name: 'Longest key', categoryId: 1 })).headers.get('idempotent-replayed'),
      'true',
    )
    assert.equal(await petsNamed('Longest key'), 1)
  })

  it('leaves requests without the header as they were: each one creates', async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await createPet(undefined, { name: 'No key', categoryId: 1 })
      assert.equal(response.status, 201)
      assert.equal(response.headers.get('idempotent-replayed'), null)
    }
    assert.equal(await petsNamed('No key'), 2)
  })

  it('forgets a key once it expires: it may be reused for anything, and the purge deletes it', async () => {
    assert.equal((await createPet('expiring', { name: 'Expiring', categoryId: 1 })).status, 201)
    await server.store.admin
      .updateTable('idempotency_keys')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('idempotency_key', '=', 'expiring')
      .execute()
    const reused = await createPet('expiring', { name: 'Reused', categoryId: 2 })
    assert.equal(reused.status, 201)
    assert.equal(reused.headers.get('idempotent-replayed'), null)
    assert.equal(await petsNamed('Reused'), 1)

    assert.equal((await createPet('purged', { name: 'Purged', categoryId: 1 })).status, 201)
    await server.store.admin
      .updateTable('idempotency_keys')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('idempotency_key', '=', 'purged')
      .execute()
    const remaining = (await server.store.admin.selectFrom('idempotency_keys').select('idempotency_key').execute())
      .length
    assert.equal(await purgeExpiredKeys(server.store), 1)
    assert.deepEqual(await storedKey('purged'), [])
    assert.equal(
      (await server.store.admin.selectFrom('idempotency_keys').select('idempotency_key').execute()).length,
      remaining - 1,
    )
    assert.equal(await purgeExpiredKeys(server.store), 0)
  })

  it('purges a backlog of expired keys larger than a burst in one run', async () => {
    assert.equal((await createPet('template', { name: 'Template', categoryId: 1 })).status, 201)
    const [template] = await storedKey('template')
    assert.ok(template)
    const expired = new Date(Date.now() - 1000).toISOString()
    const copies = Array.from({ length: 1100 }, (_, index) => ({
      ...template,
      idempotency_key: `backlog-${index}`,
      expires_at: expired,
    }))
    for (let start = 0; start < copies.length; start += 100)
      await server.store.admin
        .insertInto('idempotency_keys')
        .values(copies.slice(start, start + 100))
        .execute()
    // Bursts of one batch (500 keys), no pause: three batches in the one run.
    assert.equal(await purgeExpiredKeys(server.store, new Date(), { batchesPerBurst: 1, pauseMs: 0 }), 1100)
    assert.equal((await storedKey('template')).length, 1)
  })

  it('answers 409 while a key is held, and takes over a key whose holder died once its lease has run out', async () => {
    const body = { name: 'Abandoned', categoryId: 4 }
    const now = Date.now()
    // The API key's id, as the service stores it, from a key it stored itself.
    const [reference] = await storedKey('replay-1')
    assert.ok(reference)
    const inFlight = (key: string, leasedUntil: number) => ({
      api_key_id: reference.api_key_id,
      idempotency_key: key,
      state: 'in_flight' as const,
      lease_token: `dead-${key}`,
      request_fingerprint: requestFingerprint({
        method: 'POST',
        route: '/v1/pets',
        params: {},
        body: { ...body, status: 'available' },
      }),
      leased_until: new Date(leasedUntil).toISOString(),
      response_status: null,
      response_body: null,
      response_headers: null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 24 * HOUR_MS).toISOString(),
    })
    await server.store.admin
      .insertInto('idempotency_keys')
      .values([inFlight('held', now + 60_000), inFlight('abandoned', now - 1)])
      .execute()

    await assertError(await createPet('held', body), {
      status: 409,
      code: 'idempotency_key_in_flight',
      message: 'A request with this Idempotency-Key is still being processed; retry later to get its response.',
    })
    await assertError(await createPet('held', { ...body, categoryId: 5 }), IDEMPOTENCY_KEY_REUSED)
    const takenOver = await createPet('abandoned', body)
    assert.equal(takenOver.status, 201)
    assert.equal(takenOver.headers.get('idempotent-replayed'), null)
    assert.equal(await petsNamed('Abandoned'), 1)
    assert.equal((await createPet('abandoned', body)).headers.get('idempotent-replayed'), 'true')
  })
})
