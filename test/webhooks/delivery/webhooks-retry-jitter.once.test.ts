// The delay before each retry of a failed delivery: the schedule's entry for the attempt, spread by ±20 % so that
// deliveries that failed together (a receiver that was down for all of them) are not all retried at one instant.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { retryDelayMs } from '../../../src/webhooks/delivery/retry-schedule.js'

const SCHEDULE = [1_000, 60_000]

describe('the retry delay of a failed webhook delivery', () => {
  it('spreads the entry of the attempt by ±20 %, from its lower bound to its upper one', () => {
    // [attempt, the random draw, the delay]
    const cases = [
      [1, 0, 800],
      [1, 0.5, 1_000],
      [1, 0.75, 1_100],
      [2, 0, 48_000],
      [2, 0.25, 54_000],
    ] as const
    assert.deepEqual(
      cases.map(([attempt, draw]) => retryDelayMs(SCHEDULE, attempt, () => draw)),
      cases.map(([, , delay]) => delay),
    )
  })

  it('has no delay once the schedule is spent: the delivery fails', () => {
    assert.equal(
      retryDelayMs(SCHEDULE, 3, () => 0.5),
      undefined,
    )
  })

  it('draws a spread by default, within the bounds', () => {
    const delays = Array.from({ length: 200 }, () => retryDelayMs(SCHEDULE, 1) ?? Number.NaN)
    assert.deepEqual(
      delays.filter((delay) => !(delay >= 800 && delay <= 1_200)),
      [],
    )
    // 200 draws of Math.random() all rounding to one millisecond of a 400 ms range: about 1 in 400^199.
    assert.notEqual(new Set(delays).size, 1)
  })
})
