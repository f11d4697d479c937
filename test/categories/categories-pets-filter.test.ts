// GET /v1/pets?categoryId=N, alone and with status: the filter, paging, and cursors bound to both filters.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../helpers/error-assert.js'
import { collectPages, nextLink } from '../helpers/link.js'
import type { Pet } from '../helpers/orders.js'
import { deletePet } from '../helpers/pets.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const STATUSES = ['available', 'pending', 'sold'] as const

describe('GET /v1/pets filtered by categoryId', () => {
  let server: TestServer
  const created: Pet[] = []
  before(async () => {
    server = await startTestServer()
    // Three categories, each status in each, interleaved so that ids of one filter are never consecutive.
    for (let round = 0; round < 4; round++)
      for (const categoryId of [41, 42, 43])
        for (const status of STATUSES) {
          const response = await server.request('/v1/pets', {
            json: { name: `P${round}-${categoryId}-${status}`, categoryId, status },
          })
          assert.equal(response.status, 201)
          created.push(await response.json())
        }
  })
  after(() => server.close())

  const expected = (filter: (pet: Pet) => boolean) => created.filter(filter).sort((a, b) => a.id - b.id)

  it('pages through one category, and one category with one status, every page keeping both filters', async () => {
    assert.equal((await deletePet(server, expected((pet) => pet.categoryId === 42)[1]?.id ?? 0)).status, 204)
    const remaining = created.filter((pet) => pet !== expected((candidate) => candidate.categoryId === 42)[1])
    const cases: [string, (pet: Pet) => boolean][] = [
      ['categoryId=42', (pet) => pet.categoryId === 42],
      ['status=pending&categoryId=43', (pet) => pet.categoryId === 43 && pet.status === 'pending'],
      ['categoryId=41&status=sold', (pet) => pet.categoryId === 41 && pet.status === 'sold'],
      ['categoryId=44', () => false],
    ]
    for (const [query, filter] of cases) {
      const listed = await collectPages<Pet>((path) => server.request(path), `/v1/pets?${query}&limit=2`)
      assert.deepEqual(
        listed,
        remaining.filter(filter).sort((a, b) => a.id - b.id),
        query,
      )
    }
    const first = await server.request('/v1/pets?status=pending&categoryId=43&limit=2')
    const link = new URL(nextLink(first) ?? '')
    assert.deepEqual([...link.searchParams.keys()], ['limit', 'status', 'categoryId', 'cursor'])
    assert.equal(link.searchParams.get('categoryId'), '43')
  })

  it('refuses a cursor used with other filters, naming the ones it was issued for', async () => {
    const first = await server.request('/v1/pets?status=sold&categoryId=41&limit=1')
    const cursor = new URL(nextLink(first) ?? '').searchParams.get('cursor') ?? ''
    for (const query of ['', 'status=sold&', 'categoryId=41&', 'status=sold&categoryId=42&']) {
      await assertError(await server.request(`/v1/pets?${query}cursor=${cursor}`), {
        status: 400,
        code: 'invalid_request',
        message:
          'The cursor was issued for status=sold and categoryId=41; repeat that filter or start without a cursor.',
        details: [{ path: 'query/cursor', message: 'belongs to another filter' }],
      })
    }
    const unfiltered = await server.request('/v1/pets?limit=1')
    const plain = new URL(nextLink(unfiltered) ?? '').searchParams.get('cursor') ?? ''
    await assertError(await server.request(`/v1/pets?categoryId=41&cursor=${plain}`), {
      status: 400,
      code: 'invalid_request',
      message: 'The cursor was issued without a filter; send it without one, or start without a cursor.',
      details: [{ path: 'query/cursor', message: 'belongs to another filter' }],
    })
  })

  it('refuses a categoryId that is not an id', async () => {
    const cases: [string, string][] = [
      ['0', 'must be >= 1'],
      ['x', 'must be integer'],
      ['-3', 'must be >= 1'],
    ]
    for (const [value, message] of cases) {
      await assertError(await server.request(`/v1/pets?categoryId=${value}`), {
        status: 400,
        code: 'invalid_request',
        message: `Invalid request: query/categoryId ${message}`,
        details: [{ path: 'query/categoryId', message }],
      })
    }
  })
})
