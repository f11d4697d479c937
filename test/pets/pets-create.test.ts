import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { barrier, eventsBefore, type FeedEvent } from '../helpers/events.js'
import type { Pet } from '../helpers/orders.js'
import { VISIBLE_NAME_RULE as NAME_RULE } from '../helpers/pets.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const MAX = Number.MAX_SAFE_INTEGER
/** A number JSON.parse would round is refused where it stands. */
/** The refusal of a categoryId JSON cannot carry exactly: the message names the number as written. */
const inexact = (number: string) => ({
  details: [{ path: 'body/categoryId', message: 'is a number that cannot be read exactly' }],
  message:
    `The number ${number} cannot be read exactly: integers are written without fraction or exponent and lie ` +
    'between -9007199254740991 and 9007199254740991.',
})

describe('POST /v1/pets (createPet)', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  async function storedCount(): Promise<number> {
    const row = await server.store.admin
      .selectFrom('pets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  it('creates a pet, defaults status to available, and answers 201 with Location', async () => {
    const response = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 7 } })
    assert.equal(response.status, 201)
    const pet = await response.json()
    assert.deepEqual(pet, { id: pet.id, name: 'Rex', categoryId: 7, status: 'available' })
    assert.ok(Number.isSafeInteger(pet.id) && pet.id >= 1)
    assert.equal(response.headers.get('location'), `${server.baseUrl}/v1/pets/${pet.id}`)
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
    const stored = await server.request(`/v1/pets/${pet.id}`)
    assert.deepEqual(await stored.json(), pet)
  })

  it('stores an explicit status and the extreme values of the documented ranges exactly', async () => {
    const name = '😀'.repeat(200) // 200 characters, 400 UTF-16 code units
    const response = await server.request('/v1/pets', { json: { name, categoryId: MAX, status: 'sold' } })
    assert.equal(response.status, 201)
    const pet = await response.json()
    assert.deepEqual(pet, { id: pet.id, name, categoryId: MAX, status: 'sold' })
    const listed = await (await server.request('/v1/pets?status=sold')).json()
    assert.deepEqual(listed, [pet])
  })

  it('accepts application/json with a charset parameter', async () => {
    const response = await server.request('/v1/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: '{"name":"Charset","categoryId":1,"status":"pending"}',
    })
    assert.equal(response.status, 201)
    assert.equal((await response.json()).status, 'pending')
  })

  describe('refuses invalid bodies with 400 and stores nothing', () => {
    let countBefore = 0
    beforeEach(async () => {
      countBefore = await storedCount()
    })

    // Without a message of its own, a case's message lists the problems of its details, in their order.
    const cases: { title: string; body: string; details?: { path: string; message: string }[]; message?: string }[] = [
      { title: 'missing name', body: '{"categoryId":1}', details: [{ path: 'body/name', message: 'is required' }] },
      {
        title: 'missing categoryId',
        body: '{"name":"a"}',
        details: [{ path: 'body/categoryId', message: 'is required' }],
      },
      {
        title: 'empty object',
        body: '{}',
        details: [
          { path: 'body/name', message: 'is required' },
          { path: 'body/categoryId', message: 'is required' },
        ],
      },
      {
        title: 'empty name',
        body: '{"name":"","categoryId":1}',
        details: [
          { path: 'body/name', message: 'must NOT have fewer than 1 characters' },
          { path: 'body/name', message: NAME_RULE },
        ],
      },
      {
        title: 'name of 201 characters',
        body: JSON.stringify({ name: 'x'.repeat(201), categoryId: 1 }),
        details: [{ path: 'body/name', message: 'must NOT have more than 200 characters' }],
      },
      {
        title: 'null name',
        body: '{"name":null,"categoryId":1}',
        details: [{ path: 'body/name', message: 'must be string' }],
      },
      {
        title: 'numeric name',
        body: '{"name":5,"categoryId":1}',
        details: [{ path: 'body/name', message: 'must be string' }],
      },
      {
        title: 'name with a NUL byte',
        body: '{"name":"a\\u0000b","categoryId":1}',
        details: [{ path: 'body/name', message: NAME_RULE }],
      },
      {
        title: 'name with a lone surrogate',
        body: '{"name":"a\\ud800","categoryId":1}',
        details: [{ path: 'body/name', message: NAME_RULE }],
      },
      {
        title: 'categoryId as a string',
        body: '{"name":"a","categoryId":"5"}',
        details: [{ path: 'body/categoryId', message: 'must be integer' }],
      },
      {
        title: 'categoryId 1.5',
        body: '{"name":"a","categoryId":1.5}',
        details: [{ path: 'body/categoryId', message: 'must be integer' }],
      },
      {
        title: 'categoryId 0',
        body: '{"name":"a","categoryId":0}',
        details: [{ path: 'body/categoryId', message: 'must be >= 1' }],
      },
      {
        title: 'categoryId -1',
        body: '{"name":"a","categoryId":-1}',
        details: [{ path: 'body/categoryId', message: 'must be >= 1' }],
      },
      {
        title: 'categoryId true',
        body: '{"name":"a","categoryId":true}',
        details: [{ path: 'body/categoryId', message: 'must be integer' }],
      },
      {
        title: 'unknown status',
        body: '{"name":"a","categoryId":1,"status":"lost"}',
        details: [{ path: 'body/status', message: 'must be one of "available", "pending", "sold"' }],
      },
      {
        title: 'null status',
        body: '{"name":"a","categoryId":1,"status":null}',
        details: [
          { path: 'body/status', message: 'must be string' },
          { path: 'body/status', message: 'must be one of "available", "pending", "sold"' },
        ],
      },
      {
        title: 'client-chosen id',
        body: '{"id":5,"name":"a","categoryId":1}',
        details: [{ path: 'body/id', message: 'is not allowed' }],
      },
      {
        title: 'an array',
        body: '[{"name":"a","categoryId":1}]',
        details: [{ path: 'body', message: 'must be object' }],
      },
      { title: 'JSON null', body: 'null', details: [{ path: 'body', message: 'must be object' }] },
      {
        title: 'categoryId 2^53 (would be rounded)',
        body: '{"name":"a","categoryId":9007199254740992}',
        ...inexact('9007199254740992'),
      },
      {
        title: 'categoryId 2^53+1 (would be rounded)',
        body: '{"name":"a","categoryId":9007199254740993}',
        ...inexact('9007199254740993'),
      },
      {
        title: 'categoryId 2^63',
        body: '{"name":"a","categoryId":9223372036854775808}',
        ...inexact('9223372036854775808'),
      },
      {
        title: 'categoryId 1.0000000000000001 (would be rounded to 1)',
        body: '{"name":"a","categoryId":1.0000000000000001}',
        ...inexact('1.0000000000000001'),
      },
      { title: 'categoryId 1e0', body: '{"name":"a","categoryId":1e0}', ...inexact('1e0') },
      { title: 'categoryId 1e400', body: '{"name":"a","categoryId":1e400}', ...inexact('1e400') },
      { title: 'malformed JSON', body: '{"name":"a",', message: 'The request body is not valid JSON.' },
    ]

    for (const { title, body, details, message } of cases) {
      it(title, async () => {
        const response = await server.request('/v1/pets', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
        assert.equal(response.status, 400)
        const problems = details?.map((detail) => `${detail.path} ${detail.message}`).join('; ')
        assert.deepEqual(await response.json(), {
          code: 'invalid_request',
          message: message ?? `Invalid request: ${problems}`,
          status: 400,
          ...(details ? { details } : {}),
        })
        assert.equal(await storedCount(), countBefore)
      })
    }

    it('a query parameter on create', async () => {
      const response = await server.request('/v1/pets?dryRun=true', { json: { name: 'a', categoryId: 1 } })
      assert.equal(response.status, 400)
      assert.deepEqual(await response.json(), {
        code: 'invalid_request',
        message: 'Invalid request: query/dryRun is not a known parameter',
        status: 400,
        details: [{ path: 'query/dryRun', message: 'is not a known parameter' }],
      })
      assert.equal(await storedCount(), countBefore)
    })
  })

  // On PostgreSQL the creates of one turn go to the database as one statement: each must still get its own
  // values, id and event.
  it('assigns distinct ids to concurrent creates, each with its own values and its own pet.created', async () => {
    const get = (path: string, init?: RequestInit) => server.request(path, init)
    const start = await barrier(get)
    const statuses = ['available', 'pending', 'sold'] as const
    const sent = Array.from({ length: 50 }, (_, index) => ({
      name: `concurrent-${index}`,
      categoryId: 3 + (index % 4),
      status: statuses[index % 3],
    }))
    const responses = await Promise.all(sent.map((json) => server.request('/v1/pets', { json })))
    assert.deepEqual(
      responses.map((response) => response.status),
      Array(50).fill(201),
    )
    const pets = (await Promise.all(responses.map((response) => response.json()))) as Pet[]
    assert.deepEqual(
      pets.map(({ name, categoryId, status }) => ({ name, categoryId, status })),
      sent,
    )
    assert.equal(new Set(pets.map((pet) => pet.id)).size, 50)
    for (const pet of pets) {
      const stored = await server.request(`/v1/pets/${pet.id}`)
      assert.deepEqual(await stored.json(), pet)
    }
    const petIdOf = (event: FeedEvent) => ('pet' in event.data ? event.data.pet.id : 0)
    const created = (await eventsBefore(get, start))
      .filter((event) => event.type === 'pet.created')
      .sort((a, b) => petIdOf(a) - petIdOf(b))
    assert.deepEqual(
      created.map((event) => event.data),
      [...pets].sort((a, b) => a.id - b.id).map((pet) => ({ pet })),
    )
    // How many were combined depends on how the requests fell into turns; every combined statement carries two
    // or more. SQLite has no such statements, and no such metrics.
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text()
    const counter = (name: string) => new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics)?.[1]
    const statements = counter('petstore_postgres_combined_statements_total')
    const changes = counter('petstore_postgres_combined_changes_total')
    if (server.config.database.kind === 'postgres') {
      assert.ok(statements !== undefined && changes !== undefined, metrics)
      assert.ok(Number(changes) >= 2 * Number(statements), `${changes} changes in ${statements} statements`)
    } else assert.deepEqual([statements, changes], [undefined, undefined])
  })
})
