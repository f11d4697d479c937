// The stream body when the service shuts down, driven by a scripted subscription: a client that has taken
// everything gets the end of the stream; one that has not (it stopped reading, or vanished without closing) is cut
// at once, instead of holding the response, and the shutdown with it, until the grace period runs out.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import type { Readable } from 'node:stream'
import { afterEach, describe, it } from 'node:test'
import { eventStreamBody } from '../../src/events/event-stream.js'
import type { FeedEvent } from '../../src/events/event.mapper.js'
import type { EventSubscription } from '../../src/events/event.service.js'
import { waitingSubscription } from '../helpers/waiting-subscription.js'

/** Bigger than a body's buffer: one batch of them fills it. */
const event = (id: number): FeedEvent => ({ id, type: 'pet.created', json: `{"id":${id},"name":"${'x'.repeat(200)}"}` })

/** A subscription with `initial` events that then waits, until the service shuts down (`shutDown()`). */
function shuttingDown(initial: FeedEvent[]) {
  const subscription = waitingSubscription(initial)
  made.shutDowns.push(subscription.shutDown)
  return subscription
}

/** Every body and subscription a test made, ended after it whatever its outcome: none keeps the process alive. */
const made: { bodies: Readable[]; shutDowns: (() => void)[] } = { bodies: [], shutDowns: [] }

function body(subscription: EventSubscription, unsent = () => 0): Readable {
  const stream = eventStreamBody(subscription, {
    after: 0,
    heartbeatMs: 60_000,
    keyRecheckMs: 60_000,
    stillAuthorized: async () => true,
    onError: (error) => assert.fail(`the stream failed: ${String(error)}`),
    onCheckFailed: (error) => assert.fail(`a check failed: ${String(error)}`),
    unsent,
  })
  made.bodies.push(stream)
  return stream
}

/** Lets every pending callback and timer of this turn run. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('an event stream when the service shuts down', () => {
  afterEach(() => {
    for (const shutDown of made.shutDowns.splice(0)) shutDown()
    for (const stream of made.bodies.splice(0)) stream.destroy()
  })

  it('is cut when its client has not taken what was written', async () => {
    const stream = shuttingDown(Array.from({ length: 1000 }, (_, index) => event(index + 1)))
    const stalled = body(stream.subscription)
    // Nobody reads: the body holds the events, more than its buffer takes (16 KiB on Node 20, 64 KiB on 22 and later).
    await settle()
    assert.ok(stalled.readableLength > stalled.readableHighWaterMark, `${stalled.readableLength} bytes held`)
    const closed = once(stalled, 'close')
    stream.shutDown()
    await settle()
    assert.equal(stalled.destroyed, true)
    await closed
  })

  it('is cut when the response still holds bytes its client has not taken', async () => {
    const stream = shuttingDown([event(1)])
    let taken = ''
    const behind = body(stream.subscription, () => 1)
    behind.on('data', (chunk) => (taken += String(chunk)))
    let endedWhole = false
    behind.on('end', () => (endedWhole = true))
    await settle()
    assert.match(taken, /^: events after 0\n\nid: 1\n/)
    stream.shutDown()
    await settle()
    assert.equal(behind.destroyed, true)
    // Cut, not ended: an end the client cannot take would keep the response waiting for it.
    assert.equal(endedWhole, false)
  })

  it('ends, whole, when its client has taken everything', async () => {
    const stream = shuttingDown([event(1)])
    let taken = ''
    const reading = body(stream.subscription)
    reading.on('data', (chunk) => (taken += String(chunk)))
    await settle()
    const ended = once(reading, 'end')
    stream.shutDown()
    await ended
    assert.equal(taken, `: events after 0\n\nid: 1\nevent: pet.created\ndata: ${event(1).json}\n\n`)
  })
})
