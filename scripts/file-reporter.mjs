// npm test's reporter on the terminal: one line per test file's top-level test (a file's describe), with its
// counts and duration, and every failure in full as it happens. Everything else (each test's line, what the
// tests print) goes to the TAP log beside it (scripts/test.ts says where).
// JavaScript, not TypeScript: node loads a reporter before tsx's loader is in place.
// @ts-check
import { relative } from 'node:path'
import process from 'node:process'
import { inspect } from 'node:util'

/** @typedef {{ passed: number, failed: number, skipped: number }} Counts */
/** @typedef {import('node:test/reporters').TestEvent} TestEvent */
/** @typedef {Extract<TestEvent, { type: 'test:pass' | 'test:fail' }>['data']} Outcome */

// Failures that only repeat another: a suite whose tests failed, a test cancelled because its hook failed.
const ECHOES = new Set(['subtestsFailed', 'cancelledByParent'])

/** @param {Outcome} data */
const place = (data) => (data.file ? relative(process.cwd(), data.file) : '(no file)')
/** @param {number} milliseconds */
const seconds = (milliseconds) => `${(milliseconds / 1000).toFixed(1)} s`

/** @param {Counts} counts */
function describeCounts({ passed, failed, skipped }) {
  return [
    `${passed} passed`,
    ...(failed > 0 ? [`${failed} failed`] : []),
    ...(skipped > 0 ? [`${skipped} skipped`] : []),
  ].join(', ')
}

/** @param {Outcome} data */
function failureInFull(data) {
  /** @type {(Error & { cause?: unknown }) | undefined} */
  const error = data.details.error
  const cause = error?.cause ?? error
  const where = `${place(data)}${data.line === undefined ? '' : `:${data.line}`}`
  const text = inspect(cause, { depth: 6, colors: false }).replace(/^/gm, '    ')
  return `\n  ✖ FAILED ${where} › ${data.name}\n${text}\n\n`
}

/** @param {AsyncIterable<TestEvent>} source */
export default async function* fileReporter(source) {
  // Per file: its tests' counts, kept apart because files run side by side and their events interleave.
  /** @type {Map<string, Counts>} */
  const perFile = new Map()
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const data = event.data
    const file = place(data)
    const counts = perFile.get(file) ?? { passed: 0, failed: 0, skipped: 0 }
    perFile.set(file, counts)
    const failureType = /** @type {{ failureType?: string } | undefined} */ (data.details.error)?.failureType
    if (event.type === 'test:fail' && !ECHOES.has(failureType ?? '')) yield failureInFull(data)
    if (data.details.type !== 'suite') {
      if (data.skip !== undefined && data.skip !== false) counts.skipped++
      else if (event.type === 'test:pass') counts.passed++
      else counts.failed++
    }
    if (data.nesting > 0) continue
    // A top-level test or suite has ended: one line for it and the tests it held.
    const skipped = data.skip !== undefined && data.skip !== false
    const mark = event.type === 'test:fail' ? '✖' : skipped ? '-' : '✔'
    const summary = skipped
      ? `skipped${typeof data.skip === 'string' ? `: ${data.skip}` : ''}`
      : `${describeCounts(counts)}  ${seconds(data.details.duration_ms)}`
    yield `${mark} ${file} › ${data.name}  ${summary}\n`
    perFile.set(file, { passed: 0, failed: 0, skipped: 0 })
  }
}
