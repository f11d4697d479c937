// A transaction whose client hangs between two statements (its process stopped or frozen, its network dropping
// packets) keeps its locks until PostgreSQL ends it. A category create holds every pet write back on every
// instance while it runs (SHARE on pets), so a hung one must not hold them for ever: the server ends a
// transaction idle for 10 s, and the pet writes of every instance go through again.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { startTestServer, type TestServer } from '../helpers/server.js'

describe('a PostgreSQL transaction whose client hangs', () => {
  let server: TestServer

  before(async () => {
    // The default statement time-out, so that a pet write waiting for the lock answers 503 within 2 s.
    server = await startTestServer({ env: { DATABASE_STATEMENT_TIMEOUT_MS: '1500' } })
  })
  after(() => server.close())

  it('is ended by the server after 10 s idle, and pet writes held back by its lock go through again', async () => {
    let locked!: () => void
    let release!: () => void
    const isLocked = new Promise<void>((resolve) => (locked = resolve))
    const released = new Promise<void>((resolve) => (release = resolve))
    // As a category create holds the pets: then it hangs, as a stopped process would.
    const hung = server.store.transaction(async (trx) => {
      await sql`lock table pets in share mode`.execute(trx)
      locked()
      await released
      await sql`select 1`.execute(trx)
    })
    const outcome = hung.then(
      () => 'committed',
      () => 'ended by the server',
    )
    await isLocked
    const lockedAt = Date.now()

    const held = await server.request('/v1/pets', { json: { name: 'Held', categoryId: 1 } })
    assert.equal(held.status, 503, await held.clone().text())
    assert.deepEqual(await held.json(), {
      code: 'unavailable',
      message: 'The database cannot be reached right now; retry the request.',
      status: 503,
    })

    let created: Response | undefined
    while (Date.now() - lockedAt < 20_000) {
      const response = await server.request('/v1/pets', { json: { name: 'Through', categoryId: 1 } })
      if (response.status === 201) {
        created = response
        break
      }
      assert.equal(response.status, 503, await response.text())
      await sleep(500)
    }
    const waited = Date.now() - lockedAt
    release()
    assert.ok(created, `pet writes were still held back ${waited} ms after the transaction hung`)
    assert.deepEqual(await created.json(), { id: 1, name: 'Through', categoryId: 1, status: 'available' })
    assert.ok(waited >= 9_000, `the transaction was ended after ${waited} ms, before its 10 s`)
    assert.equal(await outcome, 'ended by the server')
  })
})
