// Resident memory of a server process, from /proc (Linux). The peak during a scenario comes from the kernel's
// own high-water mark (VmHWM) after resetting it, which misses nothing between samples; where the reset is
// not permitted, from samples every 50 ms.
import { readFileSync, writeFileSync } from 'node:fs'

function statusField(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssFile'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : undefined
  } catch {
    return undefined
  }
}

/**
 * The file-backed part of the resident set in MiB (pages of the node executable and its libraries, which the
 * kernel maps around each page touched, shares with every process running them and drops under pressure), or NaN.
 * How much of the executable it maps depends on the kernel: this part is what differs between machines.
 */
export function fileBackedMiB(pid: number): number {
  return statusField(pid, 'RssFile') ?? NaN
}

/** Current resident set size in MiB, or NaN when unknown (not Linux, process gone). */
export function rssMiB(pid: number): number {
  return statusField(pid, 'VmRSS') ?? NaN
}

export interface PeakSampler {
  /** The peak resident set size in MiB since the sampler started. */
  stop(): number
}

export function samplePeakRss(pid: number): PeakSampler {
  let highWaterMarkReset = false
  try {
    // "5" resets the peak resident set size (Documentation/filesystems/proc.rst, /proc/PID/clear_refs).
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    highWaterMarkReset = true
  } catch {
    highWaterMarkReset = false
  }
  let peak = rssMiB(pid)
  const timer = setInterval(() => {
    const now = rssMiB(pid)
    // Once the process has exited its RSS reads as NaN, which must not replace the peak seen before.
    if (Number.isFinite(now) && !(now <= peak)) peak = now
  }, 50)
  return {
    stop() {
      clearInterval(timer)
      const highWaterMark = highWaterMarkReset ? statusField(pid, 'VmHWM') : undefined
      const known = [peak, rssMiB(pid), highWaterMark ?? NaN].filter((value) => Number.isFinite(value))
      return known.length > 0 ? Math.max(...known) : NaN
    },
  }
}

/**
 * The V8 heap (total and used) and external memory, from the service's own /metrics (prom-client's default
 * metrics), to tell JavaScript objects apart from the rest of the RSS (code, SQLite, buffers). One line.
 */
export async function heapBreakdown(baseUrl: string): Promise<string> {
  try {
    const text = await (await fetch(`${baseUrl}/metrics`)).text()
    const value = (name: string) => Number(new RegExp(`^${name} ([0-9.e+]+)`, 'm').exec(text)?.[1]) / 2 ** 20
    return (
      `V8 heap ${value('nodejs_heap_size_total_bytes').toFixed(0)} MiB ` +
      `(${value('nodejs_heap_size_used_bytes').toFixed(0)} used), external ` +
      `${value('nodejs_external_memory_bytes').toFixed(0)} MiB`
    )
  } catch (error) {
    return `heap figures unavailable (${error instanceof Error ? error.message : String(error)})`
  }
}
