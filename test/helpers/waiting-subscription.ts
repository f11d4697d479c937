// A stand-in for the event service's subscription, for tests of the stream body: it hands over `initial`, then
// each `next` waits (a quiet heartbeat interval: answered [] when its `until` settles) until it is closed or the
// service shuts down.
import type { FeedEvent } from '../../src/events/event.mapper.js'
import type { EventSubscription } from '../../src/events/event.service.js'

export function waitingSubscription(initial: FeedEvent[] = []): {
  subscription: EventSubscription
  /** The service shuts down: `shutDown` settles, the subscription ends, and a waiting `next` answers. */
  shutDown: () => void
} {
  let ended = false
  let shut!: () => void
  const shutDown = new Promise<void>((resolve) => (shut = resolve))
  let wake: (() => void) | undefined
  return {
    subscription: {
      initial,
      position: initial.at(-1)?.id ?? 0,
      shutDown,
      get ended() {
        return ended
      },
      next: (until) =>
        new Promise<FeedEvent[]>((resolve) => {
          wake = () => resolve([])
          void until.then(() => resolve([]))
        }),
      close() {
        ended = true
        wake?.()
      },
    },
    shutDown() {
      ended = true
      shut()
      wake?.()
    },
  }
}
