// The totals npm test prints, read from node:test's TAP output line by line.
//
// Failures are named as well, with where they are declared: npm test prints them in its last lines, which are what a
// CI log shows when it keeps only the end of a long output.
//
// Skips are counted from the test points themselves (`ok 3 - name # SKIP reason`, at any depth), not from
// node's own `# skipped N` line: that line counts skipped tests only, so a skipped describe (a whole file
// skipped for want of Chromium, nginx or Redis) was reported as `0 skipped`.
import { relative } from 'node:path'

export interface Skip {
  /** The skipped test or suite, as TAP names it. */
  name: string
  /** The reason given to `skip`, or '' when none was given. */
  reason: string
}

export interface Failure {
  /** The failed test or hook's suite, as TAP names it. */
  name: string
  /** Where it is declared, `file:line:column` relative to the working directory, or '' when TAP gave none. */
  location: string
}

export interface TapTally {
  passed: number
  failed: number
  skipped: Skip[]
  /** Every failure that is not an echo of another (a suite whose tests failed, a test whose hook failed). */
  failures: Failure[]
}

/**
 * Per tally, the failed test point whose YAML block is being read (its location and failure type follow it):
 * reading state, kept out of the tally that npm test reports.
 */
const openFailures = new WeakMap<TapTally, { failure: Failure; type: string }>()

export function emptyTally(): TapTally {
  return { passed: 0, failed: 0, skipped: [], failures: [] }
}

// TAP escapes `#` and `\` in names and reasons (`\#`, `\\`); a test point is skipped when its directive,
// after the first unescaped ` # `, is SKIP.
const SKIPPED_POINT = /^\s*ok \d+ - ((?:[^\\#]|\\.)*?) # SKIP(?:\s+(.*))?$/i
const SUMMARY = /^# (pass|fail|cancelled) (\d+)$/
// A failing test marked todo (`not ok 4 - name # TODO reason`) does not fail the run, and is not a failure here.
const FAILED_POINT = /^\s*not ok \d+ - ((?:[^\\#]|\\.)*?)(?: # (?!TODO\b).*)?$/i
const LOCATION = /^\s+location: '(.*)'$/
const FAILURE_TYPE = /^\s+failureType: '(.*)'$/
const END_OF_BLOCK = /^\s+\.\.\.$/
// Failures that only repeat another, as scripts/file-reporter.mjs also leaves them out.
const ECHOES = new Set(['subtestsFailed', 'cancelledByParent'])

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
  readFailure(tally, line)
}

/** Follows a failed test point through its YAML block, and keeps it unless it echoes another failure. */
function readFailure(tally: TapTally, line: string): void {
  const failed = FAILED_POINT.exec(line)
  if (failed) {
    openFailures.set(tally, { failure: { name: unescape(failed[1] ?? ''), location: '' }, type: '' })
    return
  }
  const open = openFailures.get(tally)
  if (!open) return
  const location = LOCATION.exec(line)
  if (location) open.failure.location = relative(process.cwd(), location[1] ?? '')
  const type = FAILURE_TYPE.exec(line)
  if (type) open.type = type[1] ?? ''
  if (END_OF_BLOCK.test(line)) {
    if (!ECHOES.has(open.type)) tally.failures.push(open.failure)
    openFailures.delete(tally)
  }
}

/** Adds every complete line of `text` to the tally. */
export function tallyText(tally: TapTally, text: string): TapTally {
  for (const line of text.split('\n')) tallyLine(tally, line)
  return tally
}
