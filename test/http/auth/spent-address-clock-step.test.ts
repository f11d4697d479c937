// At a client address over its anonymous quota, a key the instance has not seen lately is compared with a reading
// of every active key that began after the request arrived. Those instants are taken from the monotonic clock: after
// a step of the wall clock back an hour, a reading made before the step counted as newer than every request for
// that hour, so a key created after it was refused 429 as if it did not exist.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { issueApiKey } from '../../../src/keys/issue-key.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { stepWallClock } from '../../helpers/wall-clock.js'

const SPENT_ADDRESS = '203.0.113.44'

describe('a new key at a spent address after the wall clock stepped back', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_ANONYMOUS: '3', TRUST_PROXY: '127.0.0.1' } })
  })
  after(async () => {
    stepWallClock(0)
    await server.close()
  })

  const fromSpentAddress = (authorization?: string) =>
    server.request('/v1/pets', {
      auth: false,
      headers: { 'x-forwarded-for': SPENT_ADDRESS, ...(authorization ? { authorization } : {}) },
      signal: AbortSignal.timeout(10_000),
    })

  it('is let through: it is compared with a reading of the keys made after it was created', async () => {
    const statuses: number[] = []
    for (let request = 0; request < 4; request++) {
      const response = await fromSpentAddress()
      statuses.push(response.status)
      await response.arrayBuffer()
    }
    assert.deepEqual(statuses, [401, 401, 401, 429])
    // A made-up key of a stored key's form: refused after a reading of every active key's digest.
    const madeUp = await fromSpentAddress(`Bearer pst_${randomBytes(32).toString('base64url')}`)
    assert.equal(madeUp.status, 429)
    await madeUp.arrayBuffer()

    stepWallClock(-3_600_000)
    const { key } = await issueApiKey(server.store, 'created after the step')
    const valid = await fromSpentAddress(`Bearer ${key}`)
    assert.equal(valid.status, 200, await valid.clone().text())
    assert.deepEqual(await valid.json(), [])
  })
})
