// What the figures were measured on; they mean little without it.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism, loadavg, totalmem } from 'node:os'

export function describeMachine(): string {
  let cpu = 'unknown CPU'
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu
  } catch {
    // not Linux
  }
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')
  return (
    `${availableParallelism()} CPUs (${cpu}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ` +
    `${process.version}, load average ${load}`
  )
}

/** Which service was measured: the commit, and whether src/ had uncommitted changes (read-only git queries). */
export function describeRevision(root: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim()
    const changed = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean).length
    return `commit ${commit}${changed > 0 ? ` + ${changed} uncommitted change(s) in src/` : ''}`
  } catch {
    return 'revision unknown (not a git checkout)'
  }
}
