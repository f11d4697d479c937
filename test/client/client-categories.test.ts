// @petstore/client's categories against the real service on a loopback port: every operation, paging with
// for await, conditional writes, pets filtered by category, and the typed PetstoreError of each refusal.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createPetstoreClient, PetstoreError, type PetstoreClient } from '../../client/src/index.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

async function rejection(promise: Promise<unknown>): Promise<PetstoreError> {
  const error = await promise.then(
    () => assert.fail('expected a PetstoreError'),
    (failure: unknown) => failure,
  )
  assert.ok(error instanceof PetstoreError, `a PetstoreError, not ${String(error)}`)
  return error
}

const fieldsOf = ({ status, code, message, details }: PetstoreError) => ({ status, code, message, details })

describe('@petstore/client: categories', () => {
  let server: TestServer
  let client: PetstoreClient
  before(async () => {
    server = await startTestServer()
    client = createPetstoreClient({ baseUrl: `${server.baseUrl}/v1`, apiKey: TEST_API_KEY })
  })
  after(() => server.close())

  it('creates, reads, renames under If-Match and deletes a category', async () => {
    const created = await client.categories.create({ name: 'Dogs' })
    assert.deepEqual(created, { category: { id: 1, name: 'Dogs' }, etag: '"1.1"' })
    assert.deepEqual(await client.categories.get(1), created)
    const renamed = await client.categories.put(1, { name: 'Hounds' }, { ifMatch: created.etag })
    assert.deepEqual(renamed, { category: { id: 1, name: 'Hounds' }, etag: '"1.2"', created: false })
    const stale = await rejection(client.categories.remove(1, { ifMatch: created.etag }))
    assert.deepEqual(fieldsOf(stale), {
      status: 412,
      code: 'precondition_failed',
      message:
        'If-Match does not name the current ETag of category 1, "1.2": it was changed since it was read. Nothing ' +
        'was changed; read it again before retrying.',
      details: undefined,
    })
    await client.categories.remove(1, { ifMatch: renamed.etag })
    assert.deepEqual(fieldsOf(await rejection(client.categories.get(1))), {
      status: 404,
      code: 'not_found',
      message: 'No category has id 1.',
      details: undefined,
    })
  })

  it('creates with a chosen id by put, only if absent when asked, and refuses a taken name', async () => {
    const made = await client.categories.put(40, { name: 'Cats' }, { onlyIfAbsent: true })
    // Above the version of the category the test before deleted ("1.2"): a version is never handed out twice.
    assert.deepEqual(made, { category: { id: 40, name: 'Cats' }, etag: '"40.3"', created: true })
    assert.deepEqual(
      fieldsOf(await rejection(client.categories.put(40, { name: 'Kittens' }, { onlyIfAbsent: true }))),
      {
        status: 412,
        code: 'precondition_failed',
        message: 'If-None-Match: * cannot hold: category 40 exists already, at "40.3". Nothing was changed.',
        details: undefined,
      },
    )
    assert.deepEqual(fieldsOf(await rejection(client.categories.create({ name: 'CATS' }))), {
      status: 409,
      code: 'conflict',
      message: 'Category 40 is named "Cats": names are unique ignoring case. Nothing was changed.',
      details: undefined,
    })
  })

  it('pages through every category with for await, and lists the pets of one category', async () => {
    const names = Array.from({ length: 7 }, (_, index) => `Group ${index}`)
    const made = []
    for (const name of names) made.push((await client.categories.create({ name })).category)
    const listed = []
    for await (const category of client.categories.listAll({ limit: 2 })) listed.push(category)
    assert.deepEqual(listed, [{ id: 40, name: 'Cats' }, ...made])
    const first = await client.categories.list({ limit: 3 })
    assert.equal(first.items.length, 3)
    assert.ok(first.nextCursor)
    const { pet } = await client.pets.create({ name: 'Member', categoryId: 40 })
    await client.pets.create({ name: 'Other', categoryId: 41 })
    assert.deepEqual((await client.pets.list({ categoryId: 40 })).items, [pet])
    assert.deepEqual(fieldsOf(await rejection(client.categories.remove(40))), {
      status: 409,
      code: 'conflict',
      message:
        `Category 40 is used by pet ${pet.id} (and maybe others); move or delete its pets first. Nothing was ` +
        'changed.',
      details: undefined,
    })
  })
})
