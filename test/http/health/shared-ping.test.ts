// /readyz is not rate limited, so a flood of it must not become a flood of database reads: the requests that
// arrive while a readiness ping is in flight share its answer. Checked on the function alone (every way a ping
// ends) and on the real server, whose store counts the pings it is asked for.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { sharedPing } from '../../../src/http/health/shared-ping.js'
import { startTestServer } from '../../helpers/server.js'

/** A ping whose every call waits until the test settles it. */
function controlledPing() {
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = []
  const ping = () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject }))
  return { ping, pending }
}

describe('sharedPing', () => {
  it('gives the callers that arrive while a ping is in flight that ping, and starts a new one after it', async () => {
    const { ping, pending } = controlledPing()
    const shared = sharedPing(ping, 5000)
    const first = [shared(), shared(), shared()]
    assert.equal(pending.length, 1)
    pending[0]?.resolve()
    assert.deepEqual(await Promise.all(first), [undefined, undefined, undefined])
    const next = shared()
    assert.equal(pending.length, 2)
    pending[1]?.resolve()
    assert.equal(await next, undefined)
  })

  it('gives every caller of a failed ping its failure, and pings again on the next call', async () => {
    const { ping, pending } = controlledPing()
    const shared = sharedPing(ping, 5000)
    const failed = [shared(), shared()]
    pending[0]?.reject(new Error('connection refused'))
    for (const outcome of await Promise.allSettled(failed))
      assert.deepEqual(outcome, { status: 'rejected', reason: new Error('connection refused') })
    const next = shared()
    assert.equal(pending.length, 2)
    pending[1]?.resolve()
    assert.equal(await next, undefined)
  })

  it('fails a ping that never answers after the time-out, and the next call is not held by it', async () => {
    const { ping, pending } = controlledPing()
    const shared = sharedPing(ping, 20)
    await assert.rejects(Promise.all([shared(), shared()]), new Error('database ping timed out'))
    const next = shared()
    assert.equal(pending.length, 2)
    pending[1]?.resolve()
    assert.equal(await next, undefined)
    // The first ping answering late takes no one's place: the next call pings anew.
    pending[0]?.resolve()
    const last = shared()
    assert.equal(pending.length, 3)
    pending[2]?.reject(new Error('connection refused'))
    await assert.rejects(last, new Error('connection refused'))
  })
})

describe('GET /readyz under many requests at once', () => {
  it('answers each of them ready from far fewer database pings than requests', async () => {
    const server = await startTestServer()
    try {
      let pings = 0
      const ping = server.store.ping.bind(server.store)
      server.store.ping = async () => {
        pings++
        // A database a few milliseconds away, so that requests overlap a ping as they do under a flood.
        await new Promise((resolve) => setTimeout(resolve, 20))
        return ping()
      }
      const responses = await Promise.all(Array.from({ length: 40 }, () => server.request('/readyz', { auth: false })))
      for (const response of responses) {
        assert.equal(response.status, 200)
        assert.deepEqual(await response.json(), { status: 'ready' })
      }
      // Forty requests sent at once reach the server within a few pings' time, not one ping each.
      assert.ok(pings >= 1 && pings <= 10, `${pings} pings for 40 requests`)
    } finally {
      await server.close()
    }
  })
})
