// The in-memory rate-limit counts: a window per key from its first request, restarted when it ends, and a
// bounded number of keys.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { WindowCounts } from '../../../src/http/auth/window-counts.js'

describe('window counts', () => {
  it('counts within a window, refuses past the maximum, and starts again when the window ends', () => {
    const counts = new WindowCounts(10_000, 100)
    assert.deepEqual(counts.count('a', 2, 1_000), {
      max: 2,
      remaining: 1,
      ttl: 10_000,
      ttlInSeconds: 10,
      isExceeded: false,
    })
    assert.deepEqual(counts.count('a', 2, 2_500), {
      max: 2,
      remaining: 0,
      ttl: 8_500,
      ttlInSeconds: 9,
      isExceeded: false,
    })
    assert.deepEqual(counts.count('a', 2, 3_000), {
      max: 2,
      remaining: 0,
      ttl: 8_000,
      ttlInSeconds: 8,
      isExceeded: true,
    })
    assert.deepEqual(counts.count('b', 2, 3_000), {
      max: 2,
      remaining: 1,
      ttl: 10_000,
      ttlInSeconds: 10,
      isExceeded: false,
    })
    assert.deepEqual(counts.count('a', 2, 11_000), {
      max: 2,
      remaining: 1,
      ttl: 10_000,
      ttlInSeconds: 10,
      isExceeded: false,
    })
  })

  it('forgets the least recently counted key first when full', () => {
    const counts = new WindowCounts(10_000, 2)
    counts.count('a', 5, 0)
    counts.count('b', 5, 0)
    counts.count('a', 5, 0)
    counts.count('c', 5, 0)
    assert.equal(counts.count('a', 5, 0).remaining, 2)
    assert.equal(counts.count('b', 5, 0).remaining, 4)
  })
})
