// npm test's reporter on the terminal: one line per test file, with its counts and duration, and every failure in
// full as it is reported. Everything else (each test's line, what the tests print) goes to the TAP log beside it
// (scripts/test.ts says where).
// JavaScript, not TypeScript: node loads a reporter before tsx's loader is in place.
// @ts-check
import { relative } from 'node:path'
import process from 'node:process'
import { inspect } from 'node:util'

/** @typedef {import('node:test/reporters').TestEvent} TestEvent */
/** @typedef {Extract<TestEvent, { type: 'test:pass' | 'test:fail' }>['data']} Outcome */
/**
 * @typedef {{ file: string, passed: number, failed: number, skipped: number, skipReasons: string[], stderr: string[] }}
 *   FileTally
 */

// A failed file's line is followed by the last lines it wrote to stderr (the test servers write their warnings and
// errors there): what a failure in CI needs to be understood, where the TAP log is not at hand.
const STDERR_LINES_KEPT = 40

// Failures that only repeat another: a suite whose tests failed, a test cancelled because its hook failed.
const ECHOES = new Set(['subtestsFailed', 'cancelledByParent'])

/** @param {string | undefined} file */
const shown = (file) => (file ? relative(process.cwd(), file) : '(no file)')

/** @param {Outcome} data */
function failureInFull(data) {
  /** @type {(Error & { cause?: unknown }) | undefined} */
  const error = data.details.error
  const where = `${shown(data.file)}${data.line === undefined ? '' : `:${data.line}`}`
  const cause = error?.cause ?? error
  // The message (an assertion's diff included) and the stack frames of the project's code, not node's own.
  const full = cause instanceof Error && cause.stack ? cause.stack : inspect(cause, { depth: 6, colors: false })
  const text = full
    .split('\n')
    .filter((line) => !/^\s+at .*(node:internal|node:async_hooks|node_modules)/.test(line))
    .join('\n')
    .replace(/^/gm, '    ')
  return `\n  ✖ FAILED ${where} › ${data.name}\n${text}\n\n`
}

/**
 * @param {FileTally} tally
 * @param {number | undefined} duration the file's wall time in milliseconds, when node reported it
 */
function fileLine({ file, passed, failed, skipped, skipReasons, stderr }, duration) {
  const time = duration === undefined ? '' : `  ${(duration / 1000).toFixed(1)} s`
  if (passed + failed === 0 && skipped > 0)
    return `- ${file}  skipped: ${skipReasons.join('; ') || 'no reason given'}\n`
  const counts = [
    `${passed} passed`,
    ...(failed > 0 ? [`${failed} failed`] : []),
    ...(skipped > 0 ? [`${skipped} skipped`] : []),
  ]
  const printed =
    failed > 0 && stderr.length > 0
      ? `  its last ${stderr.length} line(s) on stderr:\n${stderr.map((line) => `    ${line}\n`).join('')}`
      : ''
  return `${failed > 0 ? '✖' : '✔'} ${file}  ${counts.join(', ')}${time}\n${printed}`
}

/** @param {AsyncIterable<TestEvent>} source */
export default async function* fileReporter(source) {
  // Node reports the files one after another (each file's tests together), whatever ran side by side: a file's
  // line is printed once the next file's tests are reported, or at the end.
  /** @type {FileTally | undefined} */
  let current
  /** @type {Map<string, number>} the files' wall times, reported when each file's process ends */
  const durations = new Map()
  /** @type {Map<string, string[]>} the last lines each file wrote to stderr */
  const stderr = new Map()
  const stderrOf = (/** @type {string} */ file) => stderr.get(file) ?? []
  for await (const event of source) {
    if (event.type === 'test:stderr') {
      const lines = [...stderrOf(shown(event.data.file)), ...event.data.message.split('\n').filter(Boolean)]
      stderr.set(shown(event.data.file), lines.slice(-STDERR_LINES_KEPT))
      continue
    }
    if (event.type === 'test:complete' && event.data.nesting === 0 && event.data.name === event.data.file)
      durations.set(shown(event.data.file), event.data.details.duration_ms)
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const data = event.data
    const file = shown(data.file)
    if (current?.file !== file) {
      if (current) yield fileLine({ ...current, stderr: stderrOf(current.file) }, durations.get(current.file))
      current = { file, passed: 0, failed: 0, skipped: 0, skipReasons: [], stderr: [] }
    }
    const failureType = /** @type {{ failureType?: string } | undefined} */ (data.details.error)?.failureType
    if (event.type === 'test:fail' && !ECHOES.has(failureType ?? '')) yield failureInFull(data)
    const skipped = data.skip !== undefined && data.skip !== false
    // A skipped suite counts as one skip (node runs none of its tests); other suites count through their tests.
    if (data.details.type === 'suite' && !skipped) continue
    if (skipped) {
      current.skipped++
      if (typeof data.skip === 'string') current.skipReasons.push(data.skip)
    } else if (event.type === 'test:pass') current.passed++
    else current.failed++
  }
  if (current) yield fileLine({ ...current, stderr: stderrOf(current.file) }, durations.get(current.file))
}
