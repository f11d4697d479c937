// What the authenticator recalls of the key digests it looked up lately, for the requests from a client address over
// its anonymous quota: each digest for the time it was given, then forgotten, and no more digests than the bound.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RecentDigests } from '../../src/keys/recent-digests.js'

describe('recent key digests', () => {
  it('recalls a digest until its time has passed, and not from then on', () => {
    const recent = new RecentDigests(10_000)
    recent.add('a', 1_000)
    assert.deepEqual(
      [0, 10_999, 11_000, 5_000].map((now) => recent.has('a', now)),
      // Forgotten once seen past its time: a clock read earlier afterwards does not bring it back.
      [true, true, false, false],
    )
  })

  it('keeps a digest added again for its time from then', () => {
    const recent = new RecentDigests(10_000)
    recent.add('a', 1_000)
    recent.add('a', 8_000)
    assert.equal(recent.has('a', 17_999), true)
    assert.equal(recent.has('a', 18_000), false)
  })

  it('forgets a digest deleted, and recalls no digest it was not given', () => {
    const recent = new RecentDigests(10_000)
    recent.add('a', 1_000)
    recent.delete('a')
    assert.equal(recent.has('a', 1_000), false)
    assert.equal(recent.has('b', 1_000), false)
  })

  it('keeps 10,000 digests at most, forgetting the oldest added first', () => {
    const recent = new RecentDigests(10_000)
    for (let index = 0; index <= 10_000; index++) recent.add(`digest-${index}`, 1_000)
    assert.equal(recent.has('digest-0', 1_000), false)
    assert.equal(recent.has('digest-1', 1_000), true)
    assert.equal(recent.has('digest-10000', 1_000), true)
  })
})
