// Category writes under concurrency: two instances on one database racing same-name creates (exactly one wins,
// the ids handed out are distinct), a delete racing a pet create that uses the category (the delete waits
// for the pet's transaction and then refuses, never deleting a category a committing pet uses), and a create
// racing a pet create that takes the next id (the create waits for it and goes above it).
import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import { sql } from 'kysely'
import type { Writer } from '../../src/db/database.js'
import { insertPet } from '../../src/pets/pet.repository.js'
import { categoryPath, createCategory, deleteCategory, type Category } from '../helpers/categories.js'
import { assertError } from '../helpers/error-assert.js'
import { startInstances, stopInstances } from '../helpers/instances.js'
import type { ServerProcess } from '../helpers/process.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const KEY = 'categories-concurrency-key-0123456789'
const ROUNDS = 8

describe('category creates on two instances of one database', () => {
  let database: TestDatabase
  let instances: ServerProcess[]
  before(async () => {
    database = await createTestDatabase()
    instances = await startInstances(database, { PETSTORE_API_KEYS: KEY })
  })
  after(async () => {
    await stopInstances(instances)
    await database?.drop()
  })

  const create = (instance: ServerProcess | undefined, name: string) => {
    assert.ok(instance)
    return fetch(`${instance.baseUrl}/v1/categories`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    })
  }

  it('lets exactly one of two same-name creates win, and gives distinct creates distinct ids', async () => {
    const ids: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const [first, second] = await Promise.all([
        create(instances[0], `Race ${round}`),
        create(instances[1], `RACE ${round}`),
      ])
      const answers = [first, second].map((response) => response.status).sort()
      assert.deepEqual(answers, [201, 409], `round ${round}`)
      const winner = first.status === 201 ? first : second
      const loser = first.status === 201 ? second : first
      const won: Category = await winner.json()
      ids.push(won.id)
      await assertError(loser, {
        status: 409,
        code: 'conflict',
        message: `Category ${won.id} is named "${won.name}": names are unique ignoring case. Nothing was changed.`,
      })
      const distinct = await Promise.all([
        create(instances[0], `Left ${round}`),
        create(instances[1], `Right ${round}`),
      ])
      for (const response of distinct) {
        assert.equal(response.status, 201)
        ids.push(((await response.json()) as Category).id)
      }
    }
    assert.equal(new Set(ids).size, ids.length, `ids handed out twice: ${ids.join(', ')}`)
  })
})

/** Whether a session of this database waits for a lock, in the statement a category write holds pet writes with. */
async function waitsToHoldPetWrites(server: TestServer): Promise<boolean> {
  const { rows } = await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock' and query like 'lock table%'`.execute(
    server.store.admin,
  )
  return (rows[0]?.waiting ?? 0) > 0
}

const LOOKS = 500
const LOOK_INTERVAL_MS = 20

/**
 * Sends `request` while a pet create is in progress (`insert` has run in its transaction, which has not
 * committed), and lets the pet commit once the request waits for the pet's transaction (or, were it not to wait,
 * has answered): the race both tests below are about. Returns the answer and what `insert` returned.
 */
async function racingPetCreate<T>(
  server: TestServer,
  insert: (trx: Writer) => Promise<T>,
  request: () => Promise<Response>,
): Promise<{ response: Response; pet: T }> {
  let commitPet!: () => void
  const petMayCommit = new Promise<void>((resolve) => (commitPet = resolve))
  let petInserted!: () => void
  const inserted = new Promise<void>((resolve) => (petInserted = resolve))
  const petTransaction = server.store.transaction(async (trx) => {
    const pet = await insert(trx)
    petInserted()
    await petMayCommit
    return pet
  })
  await inserted
  let answered = false
  const requesting = request().finally(() => (answered = true))
  for (let look = 0; look < LOOKS && !answered && !(await waitsToHoldPetWrites(server)); look++)
    await new Promise((resolve) => setTimeout(resolve, LOOK_INTERVAL_MS))
  commitPet()
  const pet = await petTransaction
  return { response: await requesting, pet }
}

describe(
  'category writes racing a pet create (PostgreSQL)',
  {
    skip: TEST_STORE === 'sqlite' ? 'SQLite runs one write transaction at a time' : false,
  },
  () => {
    // A server and database for each test: a category one deletes would raise the floor of the other's versions.
    let server: TestServer
    beforeEach(async () => {
      server = await startTestServer()
    })
    afterEach(() => server.close())

    it('a delete of the category the pet uses waits for the pet to commit, then refuses with 409; once the pet is \
gone elsewhere, deletes', async () => {
      const category = await createCategory(server, 'Contested')
      const { response, pet: petId } = await racingPetCreate(
        server,
        async (trx) =>
          Number((await insertPet(trx, { name: 'Joining', category_id: category.id, status: 'available' })).id),
        () => deleteCategory(server, category.id),
      )
      await assertError(response, {
        status: 409,
        code: 'conflict',
        message:
          `Category ${category.id} is used by pet ${petId} (and maybe others); move or delete its pets first. ` +
          'Nothing was changed.',
      })
      assert.equal((await server.request(categoryPath(category.id))).status, 200)
      assert.equal((await server.request(`/v1/pets/${petId}`, { method: 'DELETE' })).status, 204)
      assert.equal((await deleteCategory(server, category.id)).status, 204)
    })

    it('a create while the pet takes the next id waits for the pet to commit, then chooses the id above its \
categoryId: 201', async () => {
      const existing = await createCategory(server, 'Existing')
      const next = existing.id + 1
      // The pet is in the group the next category would get.
      const { response } = await racingPetCreate(
        server,
        (trx) => insertPet(trx, { name: 'Ahead', category_id: next, status: 'available' }),
        () => server.request('/v1/categories', { json: { name: 'Newest' } }),
      )
      assert.equal(response.status, 201)
      assert.deepEqual(await response.json(), { id: next + 1, name: 'Newest' })
      assert.equal(response.headers.get('location'), `${server.baseUrl}${categoryPath(next + 1)}`)
      assert.equal(response.headers.get('etag'), `"${next + 1}.1"`)
      await assertError(await server.request(categoryPath(next)), {
        status: 404,
        code: 'not_found',
        message: `No category has id ${next}.`,
      })
    })
  },
)
