// A key's last use is recorded at most once per interval, by the monotonic clock, and only the keys of the
// last interval are remembered.
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, it } from 'node:test'
import { lastUseThrottle } from '../../src/keys/last-use-throttle.js'
import { stepWallClock } from '../helpers/wall-clock.js'

// Long enough that the calls made one after another fall within one interval, even on a slow machine.
const INTERVAL_MS = 250

describe('the throttle on recording a key’s last use', () => {
  afterEach(() => stepWallClock(0))

  it('records a key once per interval', async () => {
    const throttle = lastUseThrottle(INTERVAL_MS)
    assert.deepEqual([throttle.due(1), throttle.due(1), throttle.due(2), throttle.due(2)], [true, false, true, false])
    await sleep(INTERVAL_MS + 10)
    assert.deepEqual([throttle.due(1), throttle.due(1), throttle.due(2)], [true, false, true])
  })

  it('records again after the interval although the wall clock stepped back an hour', async () => {
    const throttle = lastUseThrottle(INTERVAL_MS)
    assert.equal(throttle.due(7), true)
    stepWallClock(-3_600_000)
    await sleep(INTERVAL_MS + 10)
    assert.equal(throttle.due(7), true)
  })

  it('does not record sooner when the wall clock steps forward an hour', () => {
    const throttle = lastUseThrottle(INTERVAL_MS)
    assert.equal(throttle.due(7), true)
    stepWallClock(3_600_000)
    assert.equal(throttle.due(7), false)
  })

  it('forgets the keys whose interval has passed', async () => {
    const throttle = lastUseThrottle(INTERVAL_MS)
    for (let keyId = 1; keyId <= 500; keyId++) assert.equal(throttle.due(keyId), true)
    assert.equal(throttle.size, 500)
    await sleep(INTERVAL_MS + 10)
    assert.equal(throttle.due(1000), true)
    assert.equal(throttle.size, 1)
    // A key still within its interval is kept: it is not recorded twice.
    assert.equal(throttle.due(1000), false)
  })
})
