// npm test's summary (scripts/test.ts) counts every skipped test and suite, with its reason: a file skipped
// as a whole (no Chromium, no nginx) used to be summarised as `0 skipped`, its message lost in the output. It
// also names every failed test, so that a log that keeps only the end of the output still says what failed.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, it } from 'node:test'
import { emptyTally, tallyText } from '../../scripts/tap-tally.js'
import { makeTempDir } from '../helpers/temp.js'

/**
 * Runs node with `args` as npm test runs its passes (output on a pipe) and returns its exit code and standard output.
 */
async function runNode(args: string[], env: Record<string, string | undefined> = {}) {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env }
  // Set by the test runner around this file: a nested runner would report to it instead of printing TAP.
  delete childEnv.NODE_TEST_CONTEXT
  const child = spawn(process.execPath, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.resume()
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  return { code, stdout }
}

/** Runs `node --test FILE` with the TAP reporter, as npm test does for its logs, and returns its standard output. */
async function runNodeTest(file: string, env: Record<string, string | undefined>): Promise<string> {
  // Named, since the default reporter on a pipe is TAP on Node 20 but spec from Node 23 on.
  const { code, stdout } = await runNode(['--import', 'tsx', '--test', '--test-reporter=tap', file], env)
  assert.equal(code, 0, stdout)
  return stdout
}

describe('the TAP tally of npm test', () => {
  it('counts a skipped suite, which node:test leaves out of its own "# skipped" count, and a skipped test', () => {
    // The TAP node 20 prints for a file with one skipped describe, one passing test and one skipped test.
    const tap = [
      'TAP version 13',
      '# Subtest: GET /docs in a browser',
      'ok 1 - GET /docs in a browser # SKIP /usr/bin/chromium not found',
      '  ---',
      '  duration_ms: 0.7',
      "  type: 'suite'",
      '  ...',
      '# Subtest: outer',
      '    # Subtest: inner \\# 2',
      '    ok 1 - inner \\# 2 # SKIP',
      'ok 2 - outer',
      '1..2',
      '# tests 2',
      '# suites 2',
      '# pass 1',
      '# fail 0',
      '# cancelled 0',
      '# skipped 1',
      '# todo 0',
    ].join('\n')
    assert.deepEqual(tallyText(emptyTally(), tap), {
      passed: 1,
      failed: 0,
      skipped: [
        { name: 'GET /docs in a browser', reason: '/usr/bin/chromium not found' },
        { name: 'inner # 2', reason: '' },
      ],
      failures: [],
    })
  })

  it('counts failed and cancelled tests as failed', () => {
    assert.deepEqual(tallyText(emptyTally(), '# pass 3\n# fail 1\n# cancelled 2\n'), {
      passed: 3,
      failed: 3,
      skipped: [],
      failures: [],
    })
  })

  it('counts the skips of a real node --test run: a skipped describe, a skipped test and t.skip()', async () => {
    const file = join(makeTempDir(), 'skips.test.mjs')
    writeFileSync(
      file,
      [
        "import { describe, it } from 'node:test'",
        "describe('needs a program', { skip: 'the program is missing' }, () => { it('a', () => {}) })",
        "it('runs', () => {})",
        "it('is skipped', { skip: 'not today' }, () => {})",
        "it('skips itself', (t) => { t.skip('decided at run time') })",
      ].join('\n'),
    )
    assert.deepEqual(tallyText(emptyTally(), await runNodeTest(file, {})), {
      passed: 1,
      failed: 0,
      skipped: [
        { name: 'needs a program', reason: 'the program is missing' },
        { name: 'is skipped', reason: 'not today' },
        { name: 'skips itself', reason: 'decided at run time' },
      ],
      failures: [],
    })
  })

  it('names each failed test and hook with where it is declared, not the echoes of them nor a todo', async () => {
    const directory = makeTempDir()
    const file = join(directory, 'fails.test.mjs')
    writeFileSync(
      file,
      [
        "import assert from 'node:assert/strict'",
        "import { before, describe, it } from 'node:test'",
        "describe('mixed', () => {",
        "  it('passes', () => {})",
        "  it('fails \\u0023 with a hash', () => assert.equal('shown', 'expected'))",
        '})',
        "describe('hooked', () => { before(() => { throw new Error('no server') }); it('a', () => {}) })",
        "it('to do', { todo: 'not yet' }, () => { throw new Error('a todo may fail') })",
      ].join('\n'),
    )
    const { code, stdout } = await runNode(['--test', '--test-reporter=tap', file], {})
    assert.equal(code, 1, stdout)
    const where = relative(process.cwd(), file)
    assert.deepEqual(tallyText(emptyTally(), stdout), {
      passed: 1,
      failed: 2,
      skipped: [],
      failures: [
        { name: 'fails # with a hash', location: `${where}:5:3` },
        { name: 'hooked', location: `${where}:7:1` },
      ],
    })
  })

  it('counts the /docs browser test as skipped, with its reason, when Chromium is missing (CI unset)', async () => {
    const missing = join(makeTempDir(), 'chromium')
    const output = await runNodeTest('test/http/openapi/docs-page.once.test.ts', {
      PETSTORE_TEST_CHROMIUM: missing,
      CI: undefined,
    })
    assert.deepEqual(tallyText(emptyTally(), output), {
      passed: 0,
      failed: 0,
      skipped: [
        {
          name: 'GET /docs in a browser',
          reason: `${missing} not found: the /docs browser test needs Debian's Chromium (apt-get install chromium)`,
        },
      ],
      failures: [],
    })
  })
})

describe("npm test's reporter on the terminal (scripts/file-reporter.mjs)", () => {
  it("prints a line per file with its counts, each failure in full, a failed file's last lines on stderr", async () => {
    const directory = makeTempDir()
    const mixed = join(directory, 'mixed.test.mjs')
    writeFileSync(
      mixed,
      [
        "import assert from 'node:assert/strict'",
        "import { before, describe, it } from 'node:test'",
        "console.log('noise from the test file')",
        'for (let line = 1; line <= 45; line++) console.error(`stderr line ${line}`)',
        "describe('mixed', () => {",
        "  it('passes', () => {})",
        "  it('fails', () => assert.equal('shown', 'expected'))",
        "  it('is skipped', { skip: 'not today' }, () => {})",
        '})',
        "describe('hooked', () => { before(() => { throw new Error('no server') }); it('a', () => {}) })",
        "describe('needs a program', { skip: 'the program is missing' }, () => { it('b', () => {}) })",
      ].join('\n'),
    )
    const skipped = join(directory, 'skipped.test.mjs')
    writeFileSync(
      skipped,
      "import { describe, it } from 'node:test'\nconsole.error('stderr of a file that did not fail')\n" +
        "describe('browser', { skip: 'no Chromium' }, () => { it('c', () => {}) })\n",
    )
    const { code, stdout } = await runNode([
      '--test',
      '--test-reporter=./scripts/file-reporter.mjs',
      '--test-reporter-destination=stdout',
      mixed,
      skipped,
    ])
    assert.equal(code, 1, 'a failing test fails the run')
    const lines = stdout.split('\n').filter((line) => /^[✔✖-] /.test(line))
    assert.deepEqual(
      lines.map((line) => line.replace(/ {2}\d+\.\d s$/, '').replace(/^(.) \S+\/([a-z]+\.test\.mjs) /, '$1 $2 ')),
      ['✖ mixed.test.mjs  1 passed, 2 failed, 2 skipped', '- skipped.test.mjs  skipped: no Chromium'],
    )
    assert.match(stdout, /✖ FAILED \S+mixed\.test\.mjs:\d+ › fails\n {4}AssertionError/)
    assert.match(stdout, /\+ 'shown'\n {4}- 'expected'/)
    assert.match(stdout, /✖ FAILED \S+ › hooked\n {4}Error: no server/)
    assert.doesNotMatch(stdout, /noise from the test file/)
    // The last 40 of the failed file's 45 lines on stderr, right under its line; none of the other file's.
    const kept = Array.from({ length: 40 }, (_, index) => `    stderr line ${index + 6}\n`).join('')
    assert.match(stdout, new RegExp(`1 passed, 2 failed, 2 skipped.*\n  its last 40 line\\(s\\) on stderr:\n${kept}-`))
    assert.doesNotMatch(stdout, /stderr line 5\n|did not fail/)
  })
})
