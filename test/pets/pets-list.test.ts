import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { nextLink } from '../helpers/link.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

interface Pet {
  id: number
  name: string
  categoryId: number
  status: string
}

describe('GET /v1/pets (listPets)', () => {
  let server: TestServer
  const created: Pet[] = []
  const statuses = ['available', 'pending', 'sold'] as const

  before(async () => {
    server = await startTestServer()
    const empty = await server.request('/v1/pets')
    assert.equal(empty.status, 200)
    assert.deepEqual(await empty.json(), [])
    assert.equal(empty.headers.get('link'), null)
    for (let index = 0; index < 45; index++) {
      const response = await server.request('/v1/pets', {
        json: { name: `pet-${index}`, categoryId: index + 1, status: statuses[index % 3] },
      })
      created.push(await response.json())
    }
  })
  after(() => server.close())

  it('returns the first 20 pets in id order with a next link that keeps the limit', async () => {
    const response = await server.request('/v1/pets')
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), created.slice(0, 20))
    const next = nextLink(response)
    assert.ok(next)
    const url = new URL(next)
    assert.equal(url.origin + url.pathname, `${server.baseUrl}/v1/pets`)
    assert.deepEqual([...url.searchParams.keys()], ['limit', 'cursor'])
    assert.equal(url.searchParams.get('limit'), '20')
  })

  it('walks every page exactly once, and the last page has no next link', async () => {
    const seen: Pet[] = []
    let url: string | undefined = `${server.baseUrl}/v1/pets?limit=7`
    let pages = 0
    while (url) {
      const response = await server.request(url.slice(server.baseUrl.length))
      assert.equal(response.status, 200)
      seen.push(...(await response.json()))
      url = nextLink(response)
      pages++
    }
    assert.equal(pages, 7)
    assert.deepEqual(seen, created)
  })

  it('filters by status and keeps the filter in the next link', async () => {
    const pending = created.filter((pet) => pet.status === 'pending')
    const first = await server.request('/v1/pets?status=pending&limit=10')
    assert.deepEqual(await first.json(), pending.slice(0, 10))
    const next = nextLink(first)
    assert.ok(next)
    assert.equal(new URL(next).searchParams.get('status'), 'pending')
    const second = await server.request(next.slice(server.baseUrl.length))
    assert.deepEqual(await second.json(), pending.slice(10))
    assert.equal(nextLink(second), undefined)
  })

  it('has no next link when the page ends exactly at the last pet', async () => {
    const response = await server.request('/v1/pets?limit=45')
    assert.deepEqual(await response.json(), created)
    assert.equal(response.headers.get('link'), null)
  })

  it('refuses a cursor used with another filter', async () => {
    const next = nextLink(await server.request('/v1/pets?status=sold&limit=2'))
    assert.ok(next)
    const cursor = new URL(next).searchParams.get('cursor') ?? ''
    for (const query of [`cursor=${cursor}`, `status=available&cursor=${cursor}`]) {
      const response = await server.request(`/v1/pets?${query}`)
      assert.equal(response.status, 400)
      assert.deepEqual(await response.json(), {
        code: 'invalid_request',
        message: 'The cursor was issued for status=sold; repeat that filter or start without a cursor.',
        status: 400,
        details: [{ path: 'query/cursor', message: 'belongs to another filter' }],
      })
    }
  })

  it('refuses a tampered or made-up cursor', async () => {
    const next = nextLink(await server.request('/v1/pets?limit=2'))
    assert.ok(next)
    const cursor = new URL(next).searchParams.get('cursor') ?? ''
    const [payload, signature] = cursor.split('.')
    const forgedPayload = Buffer.from('40.').toString('base64url')
    for (const bad of [
      `${forgedPayload}.${signature}`,
      `${payload}.${signature?.slice(1)}`,
      'abc',
      `${cursor}.x`,
      Buffer.from('2.').toString('base64url'),
    ]) {
      const response = await server.request(`/v1/pets?cursor=${encodeURIComponent(bad)}`)
      assert.equal(response.status, 400, bad)
      assert.deepEqual(await response.json(), {
        code: 'invalid_request',
        message: 'The cursor is not valid: use the Link header of a previous page unchanged.',
        status: 400,
        details: [{ path: 'query/cursor', message: 'is not a cursor this service issued' }],
      })
    }
  })

  const badQueries: [string, { path: string; message: string }[]][] = [
    ['limit=0', [{ path: 'query/limit', message: 'must be >= 1' }]],
    ['limit=101', [{ path: 'query/limit', message: 'must be <= 100' }]],
    ['limit=-1', [{ path: 'query/limit', message: 'must be >= 1' }]],
    ['limit=2.5', [{ path: 'query/limit', message: 'must be integer' }]],
    ['limit=05', [{ path: 'query/limit', message: 'must be integer' }]],
    ['limit=1e1', [{ path: 'query/limit', message: 'must be integer' }]],
    ['limit=0x10', [{ path: 'query/limit', message: 'must be integer' }]],
    ['limit=%205', [{ path: 'query/limit', message: 'must be integer' }]],
    ['limit=', [{ path: 'query/limit', message: 'must be integer' }]],
    ['limit=abc', [{ path: 'query/limit', message: 'must be integer' }]],
    ['limit=99999999999999999999', [{ path: 'query/limit', message: 'must be <= 100' }]],
    ['limit=5&limit=6', [{ path: 'query/limit', message: 'must be given at most once' }]],
    ['status=lost', [{ path: 'query/status', message: 'must be one of "available", "pending", "sold"' }]],
    ['status=Available', [{ path: 'query/status', message: 'must be one of "available", "pending", "sold"' }]],
    ['status=sold&status=sold', [{ path: 'query/status', message: 'must be given at most once' }]],
    ['page=2', [{ path: 'query/page', message: 'is not a known parameter' }]],
    ['__proto__=x', [{ path: 'query/__proto__', message: 'is not a known parameter' }]],
    ['cursor=', [{ path: 'query/cursor', message: 'must NOT have fewer than 1 characters' }]],
    // Every problem of the query in one answer, an unknown or repeated parameter beside the others' values.
    [
      'limit=500&status=bad&foo=1&cursor=',
      [
        { path: 'query/foo', message: 'is not a known parameter' },
        { path: 'query/limit', message: 'must be <= 100' },
        { path: 'query/status', message: 'must be one of "available", "pending", "sold"' },
        { path: 'query/cursor', message: 'must NOT have fewer than 1 characters' },
      ],
    ],
    [
      'limit=5&limit=6&status=lost',
      [
        { path: 'query/limit', message: 'must be given at most once' },
        { path: 'query/status', message: 'must be one of "available", "pending", "sold"' },
      ],
    ],
  ]
  for (const [query, details] of badQueries) {
    it(`refuses ?${query} with 400`, async () => {
      const response = await server.request(`/v1/pets?${query}`)
      assert.equal(response.status, 400)
      // The message lists the same problems as the details, in their order.
      const message = `Invalid request: ${details.map((detail) => `${detail.path} ${detail.message}`).join('; ')}`
      assert.deepEqual(await response.json(), { code: 'invalid_request', message, status: 400, details })
    })
  }

  it('accepts limit=1 and limit=100', async () => {
    assert.deepEqual(await (await server.request('/v1/pets?limit=1')).json(), created.slice(0, 1))
    assert.deepEqual(await (await server.request('/v1/pets?limit=100')).json(), created)
  })
})

describe('pagination under concurrent inserts', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('returns every pet that existed before the walk exactly once, in id order, while others insert', async () => {
    const initial: Pet[] = []
    for (let index = 0; index < 60; index++) {
      initial.push(
        await (await server.request('/v1/pets', { json: { name: `initial-${index}`, categoryId: 1 } })).json(),
      )
    }
    let inserting = true
    const writer = (async () => {
      let count = 0
      while (inserting) {
        const response = await server.request('/v1/pets', { json: { name: `during-${count++}`, categoryId: 2 } })
        assert.equal(response.status, 201)
      }
      return count
    })()

    const seen: Pet[] = []
    let path: string | undefined = '/v1/pets?limit=5'
    while (path) {
      const response = await server.request(path)
      assert.equal(response.status, 200)
      seen.push(...(await response.json()))
      const next = nextLink(response)
      path = next?.slice(server.baseUrl.length)
      if (seen.length > 400) break
    }
    inserting = false
    const insertedDuring = await writer
    assert.ok(insertedDuring > 0)

    const ids = seen.map((pet) => pet.id)
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    )
    assert.equal(new Set(ids).size, ids.length)
    assert.deepEqual(seen.slice(0, 60), initial)
  })
})

describe('absolute URLs with PUBLIC_BASE_URL', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { PUBLIC_BASE_URL: 'https://pets.example.org' } })
  })
  after(() => server.close())

  it('builds Location and Link on the configured origin', async () => {
    const created = await server.request('/v1/pets', { json: { name: 'a', categoryId: 1 } })
    const pet = await created.json()
    assert.equal(created.headers.get('location'), `https://pets.example.org/v1/pets/${pet.id}`)
    await server.request('/v1/pets', { json: { name: 'b', categoryId: 1 } })
    const next = nextLink(await server.request('/v1/pets?limit=1'))
    assert.match(next ?? '', /^https:\/\/pets\.example\.org\/v1\/pets\?limit=1&cursor=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
  })
})
