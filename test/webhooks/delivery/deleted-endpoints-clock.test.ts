// What the deliverer remembers of deleted endpoints is dropped at most once per interval, timed by the monotonic
// clock: a step of the wall clock back an hour must not keep a deleted endpoint's state (and /metrics series)
// for that hour.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { loadConfig } from '../../../src/config.js'
import { migrateToLatest } from '../../../src/db/migrate.js'
import { openStore, type Store } from '../../../src/db/store.js'
import { DeletedEndpoints } from '../../../src/webhooks/delivery/deleted-endpoints.js'
import { EndpointHealth } from '../../../src/webhooks/delivery/endpoint-health.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../../helpers/store.js'
import { stepWallClock } from '../../helpers/wall-clock.js'
import { insertEndpointRow } from '../../helpers/webhooks.js'

// Long enough that the first look (a query) and the second one right after it fall within one interval.
const INTERVAL_MS = 1000

describe(`forgetting deleted endpoints after a step of the wall clock, on ${TEST_STORE}`, () => {
  let database: TestDatabase
  let store: Store
  let liveId: number

  before(async () => {
    database = await createTestDatabase()
    store = openStore(loadConfig({ DATABASE_URL: database.url }))
    await migrateToLatest(store.admin)
    liveId = await insertEndpointRow(store.admin, { created_at: new Date().toISOString() })
  })
  after(async () => {
    stepWallClock(0)
    await store.close()
    await database.drop()
  })

  it('looks again once the interval has passed, although the wall clock went back an hour', async () => {
    const health = new EndpointHealth(2)
    const deleted = new DeletedEndpoints(health, INTERVAL_MS)
    health.record(liveId, true, Date.now())
    health.record(liveId + 1, true, Date.now())
    await deleted.forget(store.read)
    assert.deepEqual([health.heard(liveId), health.heard(liveId + 1)], [true, false])

    health.record(liveId + 2, true, Date.now())
    // Within the interval: no second look.
    await deleted.forget(store.read)
    assert.equal(health.heard(liveId + 2), true)

    stepWallClock(-3_600_000)
    await sleep(INTERVAL_MS + 10)
    await deleted.forget(store.read)
    assert.deepEqual([health.heard(liveId), health.heard(liveId + 2)], [true, false])
  })
})
