// The benchmark's CPU per request is read from /proc/PID/stat: it must agree with what the process itself
// counts (process.cpuUsage), and say "unknown" for a process that is gone rather than a number.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, it } from 'node:test'
import { processCpuSeconds } from '../../bench/cpu-time.js'

describe('processCpuSeconds', { skip: process.platform === 'linux' ? false : 'reads /proc (Linux)' }, () => {
  it("counts this process's CPU as the process does itself, to within a few clock ticks", () => {
    const before = processCpuSeconds(process.pid)
    const usage = process.cpuUsage()
    const ownSeconds = () => {
      const { user, system } = process.cpuUsage(usage)
      return (user + system) / 1e6
    }
    // Spun until it has used 0.3 s of CPU, not for a wall-clock time: on a busy machine the same wall time gets
    // far less of a core. The bound only stops a runaway.
    const started = performance.now()
    while (ownSeconds() < 0.3 && performance.now() - started < 30_000);
    const counted = processCpuSeconds(process.pid) - before
    const own = ownSeconds()
    assert.ok(own >= 0.3, `the loop used ${own} s of CPU in 30 s`)
    // Clock ticks are 10 ms; other threads (the GC's, the test runner's) add a little to both counts alike.
    assert.ok(Math.abs(counted - own) <= 0.05, `/proc says ${counted} s, the process ${own} s`)
  })

  it('is NaN for a process that has exited', () => {
    const { pid, status } = spawnSync(process.execPath, ['-e', '0'])
    assert.equal(status, 0)
    assert.ok(pid !== undefined && pid > 0)
    assert.ok(Number.isNaN(processCpuSeconds(pid)))
  })
})
