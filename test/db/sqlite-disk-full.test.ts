// A SQLite database that cannot grow (its disk is full; here its page limit is reached, which SQLite reports with
// the same SQLITE_FULL) answers writes 503 `unavailable` with Retry-After, as PostgreSQL's disk_full (SQLSTATE
// class 53) is answered, not 500: it is a state of the database that passes, and a retry then succeeds. The
// Idempotency-Key of a refused write runs again once there is room, and nothing refused is kept.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { TEST_STORE } from '../helpers/store.js'

describe('a SQLite database that cannot grow', { skip: TEST_STORE !== 'sqlite' && 'SQLite page limits' }, () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  /** The writer's page limit: SQLite refuses a change that needs more pages with SQLITE_FULL. */
  const limitPages = async (pages: number | 'none') => {
    const limit = pages === 'none' ? 1_073_741_823 : pages
    await sql.raw(`pragma max_page_count = ${limit}`).execute(server.store.admin)
  }
  const create = (name: string, key: string) =>
    server.request('/v1/pets', { json: { name, categoryId: 1 }, headers: { 'idempotency-key': key } })

  it('answers writes 503 while it is full, and takes them again once it has room', async () => {
    const pages = Number(
      (await sql.raw<{ page_count: number }>('pragma page_count').execute(server.store.admin)).rows[0]?.page_count,
    )
    await limitPages(pages)
    let refused: { response: Response; name: string; key: string } | undefined
    const created: number[] = []
    for (let attempt = 0; attempt < 5000 && !refused; attempt++) {
      const name = `Full ${attempt}`
      const key = randomUUID()
      const response = await create(name, key)
      if (response.status === 201) created.push(((await response.json()) as { id: number }).id)
      else refused = { response, name, key }
    }
    assert.ok(refused, 'the page limit was reached')
    assert.equal(refused.response.status, 503)
    assert.equal(refused.response.headers.get('retry-after'), '1')
    assert.deepEqual(await refused.response.json(), {
      code: 'unavailable',
      message: 'The database cannot be reached right now; retry the request.',
      status: 503,
    })

    await limitPages('none')
    const retried = await create(refused.name, refused.key)
    assert.equal(retried.status, 201)
    assert.equal(retried.headers.get('idempotent-replayed'), null)
    const pet = (await retried.json()) as { id: number; name: string }
    assert.equal(pet.name, refused.name)
    // Every pet acknowledged before is there, and the refused one exists once, as retried.
    const listed = await server.store.read.selectFrom('pets').select(['id', 'name']).orderBy('id').execute()
    assert.deepEqual(
      listed.map((row) => Number(row.id)),
      [...created, pet.id],
    )
    assert.equal(listed.filter((row) => row.name === refused.name).length, 1)
  })
})
