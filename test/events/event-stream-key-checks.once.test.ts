// The stream body's key checks, driven by a scripted subscription: when it asks (before a heartbeat always, before
// events at most every keyRecheckMs, and every keyRecheckMs while quiet), that a false answer ends it after one
// last comment, and that a check that fails (the database unreachable) decides nothing: the stream goes on and
// asks again at the next heartbeat.
import assert from 'node:assert/strict'
import type { Readable } from 'node:stream'
import { describe, it } from 'node:test'
import { eventStreamBody, HEARTBEAT, KEY_NO_LONGER_VALID } from '../../src/events/event-stream.js'
import type { FeedEvent } from '../../src/events/event.mapper.js'
import type { EventSubscription } from '../../src/events/event.service.js'
import { waitingSubscription } from '../helpers/waiting-subscription.js'

const event = (id: number): FeedEvent => ({ id, type: 'pet.created', json: `{"id":${id}}` })
const frame = (id: number) => `id: ${id}\nevent: pet.created\ndata: {"id":${id}}\n\n`

/** Answers each `next` with the following batch ([] is a quiet heartbeat interval), then ends. */
function scripted(batches: FeedEvent[][]): EventSubscription {
  let ended = false
  return {
    initial: [],
    position: 0,
    shutDown: new Promise<void>(() => undefined),
    get ended() {
      return ended
    },
    async next() {
      const batch = batches.shift()
      if (batch === undefined) ended = true
      return batch ?? []
    },
    close() {
      ended = true
    },
  }
}

async function text(body: Readable): Promise<string> {
  let all = ''
  for await (const chunk of body) all += String(chunk)
  return all
}

function stream(batches: FeedEvent[][], answers: (boolean | Error)[], keyRecheckMs: number) {
  const asked: number[] = []
  const failures: unknown[] = []
  const body = eventStreamBody(scripted(batches), {
    after: 0,
    heartbeatMs: 60_000,
    keyRecheckMs,
    stillAuthorized: async () => {
      asked.push(asked.length)
      const answer = answers.shift() ?? true
      if (answer instanceof Error) throw answer
      return answer
    },
    onError: (error) => assert.fail(`the stream failed: ${String(error)}`),
    onCheckFailed: (error) => failures.push(error),
    unsent: () => 0,
  })
  return { body, asked, failures }
}

describe('an event stream asking whether its key still holds', () => {
  it('asks before every write when the interval is 0, and ends on the first no', async () => {
    const { body, asked } = stream([[event(1)], [event(2)], [event(3)]], [true, false], 0)
    assert.equal(await text(body), `: events after 0\n\n${frame(1)}${KEY_NO_LONGER_VALID}`)
    assert.equal(asked.length, 2)
  })

  it('does not ask again before events within the interval, but always before a heartbeat', async () => {
    const { body, asked } = stream([[event(1)], [event(2)], [], [event(3)]], [false], 60_000)
    // Events 1 and 2 come within the interval of the stream's opening; the heartbeat asks, and the answer ends it.
    assert.equal(await text(body), `: events after 0\n\n${frame(1)}${frame(2)}${KEY_NO_LONGER_VALID}`)
    assert.equal(asked.length, 1)
  })

  it('goes on when a check fails, and asks again next time', async () => {
    const { body, asked, failures } = stream([[], [event(1)], []], [new Error('database unreachable'), true, false], 0)
    assert.equal(await text(body), `: events after 0\n\n${HEARTBEAT}${frame(1)}${KEY_NO_LONGER_VALID}`)
    assert.equal(asked.length, 3)
    assert.equal(failures.length, 1)
    assert.equal((failures[0] as Error).message, 'database unreachable')
  })

  it('asks every keyRecheckMs while nothing happens, and ends on the first no before any heartbeat', async () => {
    const quiet = waitingSubscription().subscription
    const answers = [true, false]
    let asked = 0
    const body = eventStreamBody(quiet, {
      after: 0,
      heartbeatMs: 60_000,
      keyRecheckMs: 20,
      stillAuthorized: async () => {
        asked++
        return answers.shift() ?? true
      },
      onError: (error) => assert.fail(`the stream failed: ${String(error)}`),
      onCheckFailed: (error) => assert.fail(`a check failed: ${String(error)}`),
      unsent: () => 0,
    })
    assert.equal(await text(body), `: events after 0\n\n${KEY_NO_LONGER_VALID}`)
    assert.equal(asked, 2)
  })

  it('asks keyRecheckMs after the start of the last check while quiet, however long a check takes', async () => {
    const quiet = waitingSubscription().subscription
    // Each check takes 30 ms, as a query would; the sixth says no.
    const started: number[] = []
    const body = eventStreamBody(quiet, {
      after: 0,
      heartbeatMs: 60_000,
      keyRecheckMs: 100,
      stillAuthorized: async () => {
        started.push(performance.now())
        await new Promise((resolve) => setTimeout(resolve, 30))
        return started.length < 6
      },
      onError: (error) => assert.fail(`the stream failed: ${String(error)}`),
      onCheckFailed: (error) => assert.fail(`a check failed: ${String(error)}`),
      unsent: () => 0,
    })
    assert.equal(await text(body), `: events after 0\n\n${KEY_NO_LONGER_VALID}`)
    const gaps = started.slice(1).map((at, index) => at - (started[index] ?? 0))
    assert.equal(gaps.length, 5)
    // About 100 ms each (a timer may fire up to a millisecond early by performance.now(), and late on a busy
    // machine); asking every other interval would make them 200 ms.
    const median = gaps.toSorted((a, b) => a - b)[2] ?? 0
    assert.ok(median >= 95 && median < 180, `gaps between checks: ${gaps.map((gap) => gap.toFixed(1)).join(', ')} ms`)
  })

  it('asks again an interval after a check that failed ended, one check at a time', async () => {
    // Each check takes 150 ms, longer than the interval, and fails (the database away); the fifth says no.
    const started: number[] = []
    let running = 0
    let most = 0
    const failures: unknown[] = []
    const body = eventStreamBody(waitingSubscription().subscription, {
      after: 0,
      heartbeatMs: 60_000,
      keyRecheckMs: 100,
      stillAuthorized: async () => {
        started.push(performance.now())
        most = Math.max(most, ++running)
        await new Promise((resolve) => setTimeout(resolve, 150))
        running--
        if (started.length === 5) return false
        throw new Error('database unreachable')
      },
      onError: (error) => assert.fail(`the stream failed: ${String(error)}`),
      onCheckFailed: (error) => failures.push(error),
      unsent: () => 0,
    })
    assert.equal(await text(body), `: events after 0\n\n${KEY_NO_LONGER_VALID}`)
    assert.equal(failures.length, 4)
    assert.equal(most, 1)
    // 150 ms of check, then the 100 ms interval; straight after would be 150. Each timer may fire up to a
    // millisecond early by performance.now(), as libuv times it from the loop's cached clock: 240 leaves room.
    const gaps = started.slice(1).map((at, index) => at - (started[index] ?? 0))
    assert.ok(Math.min(...gaps) >= 240, `gaps between checks: ${gaps.map((gap) => gap.toFixed(1)).join(', ')} ms`)
  })
})
