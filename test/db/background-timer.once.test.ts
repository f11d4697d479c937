// The purges' timer: a first run within the first interval (at once when the random phase is 0, so not after a
// whole interval), one run at a time, a failed run reported and followed by the next, and nothing after stop.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { startBackgroundTimer } from '../../src/db/background-timer.js'

const HOUR_MS = 3_600_000

/** The timer's own timers do not keep a process alive (unref): a test waiting on them holds it open itself. */
function keepingAlive(): () => void {
  const alive = setInterval(() => undefined, 1000)
  return () => clearInterval(alive)
}

describe('startBackgroundTimer', () => {
  it('runs first at the random moment of the first interval, not after a whole interval', async () => {
    const release = keepingAlive()
    let ran!: () => void
    const firstRun = new Promise<void>((resolve) => (ran = resolve))
    const timer = startBackgroundTimer(
      async () => ran(),
      HOUR_MS,
      (error) => assert.fail(String(error)),
      () => 0,
    )
    // An hour's interval: the run can only come from the phase of 0 (the test's time-out bounds the wait).
    await firstRun
    await timer.stop()
    release()
  })

  it('reports a failed run and runs again; stop waits for the run in progress and ends the runs', async () => {
    const release = keepingAlive()
    const errors: unknown[] = []
    let runs = 0
    let finishThird!: () => void
    let thirdStarted!: () => void
    const third = new Promise<void>((resolve) => (thirdStarted = resolve))
    const timer = startBackgroundTimer(
      async () => {
        runs++
        if (runs === 1) throw new Error('database unavailable')
        if (runs === 3) {
          thirdStarted()
          await new Promise<void>((resolve) => (finishThird = resolve))
        }
      },
      20,
      (error) => errors.push(error),
      () => 0.5,
    )
    await third
    let stopped = false
    const stopping = timer.stop().then(() => (stopped = true))
    await new Promise((resolve) => setTimeout(resolve, 60))
    // Runs do not overlap, and stop waits for the third to finish.
    assert.equal(runs, 3)
    assert.equal(stopped, false)
    finishThird()
    await stopping
    await new Promise((resolve) => setTimeout(resolve, 60))
    assert.equal(runs, 3)
    assert.deepEqual(
      errors.map((error) => (error as Error).message),
      ['database unavailable'],
    )
    release()
  })
})
