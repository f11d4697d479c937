// The totals npm test prints, read from node:test's TAP output line by line.
//
// Skips are counted from the test points themselves (`ok 3 - name # SKIP reason`, at any depth), not from
// node's own `# skipped N` line: that line counts skipped tests only, so a skipped describe (a whole file
// skipped for want of Chromium, nginx or Redis) was reported as `0 skipped`.

export interface Skip {
  /** The skipped test or suite, as TAP names it. */
  name: string
  /** The reason given to `skip`, or '' when none was given. */
  reason: string
}

export interface TapTally {
  passed: number
  failed: number
  skipped: Skip[]
}

export function emptyTally(): TapTally {
  return { passed: 0, failed: 0, skipped: [] }
}

// TAP escapes `#` and `\` in names and reasons (`\#`, `\\`); a test point is skipped when its directive,
// after the first unescaped ` # `, is SKIP.
const SKIPPED_POINT = /^\s*ok \d+ - ((?:[^\\#]|\\.)*?) # SKIP(?:\s+(.*))?$/i
const SUMMARY = /^# (pass|fail|cancelled) (\d+)$/

function unescape(text: string): string {
  return text.replace(/\\(.)/g, '$1')
}

/** Adds one line of TAP output to the tally. */
export function tallyLine(tally: TapTally, line: string): void {
  const summary = SUMMARY.exec(line)
  if (summary?.[1] === 'pass') tally.passed += Number(summary[2])
  // A test cancelled because its before hook failed did not pass: it counts as failed.
  if (summary?.[1] === 'fail' || summary?.[1] === 'cancelled') tally.failed += Number(summary[2])
  const skipped = SKIPPED_POINT.exec(line)
  if (skipped) tally.skipped.push({ name: unescape(skipped[1] ?? ''), reason: unescape(skipped[2] ?? '').trim() })
}

/** Adds every complete line of `text` to the tally. */
export function tallyText(tally: TapTally, text: string): TapTally {
  for (const line of text.split('\n')) tallyLine(tally, line)
  return tally
}
