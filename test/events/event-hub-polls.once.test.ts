// The hub's polls, driven by a scripted source: a poll that sees the store's version change reads the new events,
// and when that read fails (the database briefly unreadable), a later poll reads them again although the version
// has not changed since. Otherwise events another process committed wait, unseen by every waiting reader, for the
// next commit anywhere, however long that takes.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EventHub, type HubFollower } from '../../src/events/event-hub.js'
import type { FeedEvent } from '../../src/events/event.mapper.js'

const event = (id: number): FeedEvent => ({ id, type: 'pet.created', json: `{"id":${id}}` })

describe('the event hub polling a store with a version', () => {
  it('reads again after a failed read, although the version has not changed since', async () => {
    const stored: FeedEvent[] = []
    let version = 1
    let polls = 0
    let failNextRead = false
    const errors: unknown[] = []
    let pollsSeen: () => void = () => undefined
    const hub = new EventHub({
      source: {
        readAfter: async (after, limit) => {
          if (failNextRead) {
            failNextRead = false
            throw new Error('database is locked')
          }
          return {
            events: stored.filter((stored) => stored.id > after).slice(0, limit),
            newest: stored.at(-1)?.id ?? 0,
          }
        },
        newestId: async () => stored.at(-1)?.id ?? 0,
        version: async () => {
          polls++
          pollsSeen()
          return version
        },
      },
      pollIntervalMs: 1,
      onError: (error) => errors.push(error),
    })
    const delivered: FeedEvent[] = []
    let arrived: () => void = () => undefined
    const follower: HubFollower = {
      deliver: (events) => {
        delivered.push(...events)
        arrived()
      },
      rewound: () => undefined,
      close: () => undefined,
    }
    /** Resolves once the hub has polled `count` more times. */
    const morePolls = (count: number) =>
      new Promise<void>((resolve) => {
        const until = polls + count
        pollsSeen = () => {
          if (polls >= until) resolve()
        }
      })
    // The hub's poll timer does not keep a process alive; this test's own wait must.
    const alive = setInterval(() => undefined, 60_000)
    try {
      assert.equal(await hub.join(follower), 0)
      await morePolls(2)
      // Another process commits: the next poll sees a new version, and its read fails once.
      failNextRead = true
      stored.push(event(1))
      version = 2
      await morePolls(5)
      assert.equal(errors.length, 1, 'the failed read is reported')
      // Later polls see version 2 again: the event must be read all the same, by the next poll.
      const delivery = new Promise<void>((resolve) => (arrived = resolve))
      if (delivered.length === 0) await Promise.race([delivery, morePolls(50)])
      assert.deepEqual(delivered, [event(1)])
    } finally {
      clearInterval(alive)
      hub.close()
    }
  })
})
