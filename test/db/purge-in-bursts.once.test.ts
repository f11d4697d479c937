// The purges' shared loop: a backlog is worked off in one run, in bursts with a pause between them, and stopping
// (shutdown) ends a run between two batches without waiting out the pause; stopping the purge's timer does so.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { purgeInBursts, startPurge } from '../../src/db/purge-in-bursts.js'

/** A table of `rows` rows; each batch deletes up to the batch size it is given, and the batches are counted. */
function backlog(rows: number) {
  const state = { left: rows, batches: 0 }
  const deleteBatch = async (size: number) => {
    state.batches++
    const deleted = Math.min(size, state.left)
    state.left -= deleted
    return deleted
  }
  return { state, deleteBatch }
}

describe('purgeInBursts', () => {
  it('deletes the whole backlog in one run, burst after burst, and stops at the first short batch', async () => {
    const { state, deleteBatch } = backlog(1234)
    assert.equal(await purgeInBursts(deleteBatch, { batchSize: 100, batchesPerBurst: 3, pauseMs: 0 }), 1234)
    assert.deepEqual(state, { left: 0, batches: 13 })
  })

  it('deletes 500 rows a batch unless told otherwise', async () => {
    const { state, deleteBatch } = backlog(1200)
    assert.equal(await purgeInBursts(deleteBatch, { pauseMs: 0 }), 1200)
    assert.deepEqual(state, { left: 0, batches: 3 })
  })

  it('runs one batch only when there is less than a batch to delete, and none when stopped already', async () => {
    const small = backlog(7)
    assert.equal(await purgeInBursts(small.deleteBatch, { batchSize: 100, batchesPerBurst: 3, pauseMs: 0 }), 7)
    assert.equal(small.state.batches, 1)
    const stopped = backlog(700)
    const stop = AbortSignal.abort()
    assert.equal(await purgeInBursts(stopped.deleteBatch, { batchSize: 100, batchesPerBurst: 3, pauseMs: 0, stop }), 0)
    assert.equal(stopped.state.batches, 0)
  })

  it('ends the run when stopped during the pause between bursts, leaving the rest', async () => {
    const { state, deleteBatch } = backlog(1000)
    const controller = new AbortController()
    // An hour's pause: only the stop can end it.
    const run = purgeInBursts(deleteBatch, {
      batchSize: 100,
      batchesPerBurst: 2,
      pauseMs: 3_600_000,
      stop: controller.signal,
    })
    while (state.batches < 2) await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    assert.equal(await run, 200)
    assert.deepEqual(state, { left: 800, batches: 2 })
  })

  it('stopping the timer ends the run in progress during its pause, and waits for it', async (t) => {
    const { state, deleteBatch } = backlog(1000)
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] })
    // Ends the pause should the stop not: a failed test must not leave an hour's timer behind.
    const cleanUp = new AbortController()
    let run: Promise<number> | undefined
    const errors: unknown[] = []
    const timer = startPurge(
      (stop) =>
        (run = purgeInBursts(deleteBatch, {
          batchSize: 100,
          batchesPerBurst: 2,
          pauseMs: 3_600_000,
          stop: AbortSignal.any([stop, cleanUp.signal]),
        })),
      (error) => errors.push(error),
    )
    try {
      // The first run comes within the first five minutes.
      t.mock.timers.tick(5 * 60_000)
      while (state.batches < 2) await new Promise((resolve) => setImmediate(resolve))
      // Real time stands still (the timers are mocked): the run ends on the stop, or not at all.
      const stillRunning = (async () => {
        for (let turn = 0; turn < 1000; turn++) await new Promise((resolve) => setImmediate(resolve))
        return 'still running'
      })()
      assert.equal(await Promise.race([timer.stop().then(() => 'stopped'), stillRunning]), 'stopped')
      assert.equal(await run, 200)
      assert.deepEqual(state, { left: 800, batches: 2 })
      assert.deepEqual(errors, [])
    } finally {
      cleanUp.abort()
    }
  })
})
