// /metrics reuses its process readings for at most a second, by the monotonic clock: after a step of the wall
// clock back an hour (an NTP correction, a virtual machine resumed), the readings were those of before the step
// for that hour.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { PROCESS_METRICS_MAX_AGE_MS } from '../../../src/http/metrics/metrics.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { stepWallClock } from '../../helpers/wall-clock.js'

const HOUR_MS = 3_600_000

describe('/metrics across a step of the wall clock', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(async () => {
    stepWallClock(0)
    await server.close()
  })

  /** The process's CPU time so far, as /metrics reports it. */
  async function cpuSeconds(): Promise<number> {
    const response = await server.request('/metrics', { auth: false })
    assert.equal(response.status, 200)
    const match = /^process_cpu_seconds_total (\S+)$/m.exec(await response.text())
    assert.ok(match)
    return Number(match[1])
  }

  it('reads the process anew a second later after the clock steps back an hour', async () => {
    const before = await cpuSeconds()
    stepWallClock(-HOUR_MS)
    try {
      // 200 ms of CPU time in this process, the server's, then past the age a reading is reused for.
      const busyUntil = performance.now() + 200
      while (performance.now() < busyUntil);
      await new Promise((resolve) => setTimeout(resolve, PROCESS_METRICS_MAX_AGE_MS + 100))
      const later = await cpuSeconds()
      assert.ok(later >= before + 0.1, `${before} then ${later}`)
    } finally {
      stepWallClock(0)
    }
  })
})
