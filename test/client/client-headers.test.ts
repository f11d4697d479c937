// @petstore/client reading Retry-After in both of its forms: the service sends seconds, but a proxy or gateway in
// front of it may answer 429 or 503 with an HTTP-date, which is read against the client's clock.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { retryAfterSeconds } from '../../client/src/headers.js'

const NOW = Date.parse('2026-11-29T10:00:00.000Z')
const retryAfter = (value: string) => retryAfterSeconds(new Headers({ 'retry-after': value }), NOW)

describe('@petstore/client: Retry-After', () => {
  // Away from GMT, so that a date read as local time is caught.
  const zone = process.env.TZ
  before(() => {
    process.env.TZ = 'Asia/Tokyo'
  })
  after(() => {
    if (zone === undefined) delete process.env.TZ
    else process.env.TZ = zone
  })

  it('delay-seconds are taken as they are', () => {
    assert.equal(retryAfter('7'), 7)
    assert.equal(retryAfter(' 0 '), 0)
  })

  it('an HTTP-date is the whole seconds from now to it, rounded up', () => {
    assert.equal(retryAfter('Sun, 29 Nov 2026 10:00:03 GMT'), 3)
    // The obsolete forms a recipient must still read (RFC 850's and asctime's).
    assert.equal(retryAfter('Sunday, 29-Nov-26 10:00:05 GMT'), 5)
    assert.equal(retryAfter('Sun Nov 29 10:00:05 2026'), 5)
    assert.equal(retryAfterSeconds(new Headers({ 'retry-after': 'Sun, 29 Nov 2026 10:00:03 GMT' }), NOW + 500), 3)
  })

  it('a date already past means no wait', () => {
    assert.equal(retryAfter('Sun, 29 Nov 2026 09:59:00 GMT'), 0)
  })

  it('an absent, empty, negative or unreadable value gives no delay to wait', () => {
    assert.equal(retryAfterSeconds(new Headers(), NOW), undefined)
    assert.equal(retryAfter(''), undefined)
    assert.equal(retryAfter('-5'), undefined)
    assert.equal(retryAfter('5.5'), undefined)
    assert.equal(retryAfter('Mon 5'), undefined)
    assert.equal(retryAfter('Sun, 29 Nov 2026 10:00:03 +0100'), undefined)
    assert.equal(retryAfter('Sun, 29 Nov 2026 10:00:03'), undefined)
    assert.equal(retryAfter('2026-11-29T10:00:03Z'), undefined)
    assert.equal(retryAfter('soon'), undefined)
  })
})
