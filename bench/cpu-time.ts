// CPU time a server process has used (user + system), from /proc (Linux). Requests per second on a shared
// machine move with whatever else runs; the CPU a process spends per request moves much less, so each row also
// reports it: what a request costs the process itself, whoever else had the cores.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

let ticksPerSecond: number | undefined

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

/** Seconds of CPU the process has used so far, or NaN when unknown (not Linux, process gone). */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is in parentheses and may hold spaces: the fields are counted after it. The
    // state is field 3; utime and stime are fields 14 and 15, in clock ticks.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / clockTicks()
  } catch {
    return NaN
  }
}
