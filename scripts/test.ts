// npm test: every test file on SQLite; then, when TEST_DATABASE_URL is set, every store-dependent file again
// on PostgreSQL (each file in a schema of its own). In CI the PostgreSQL pass is mandatory, never skipped.
// `--store sqlite` or `--store postgres` runs one store's passes only: CI runs each on another Node.js line.
// Quiet: one line per file, failures in full, a summary per pass; the full TAP of each pass goes to a file.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { emptyTally, tallyText, type Skip, type TapTally } from './tap-tally.js'
import { chooseTestFiles, findTestFiles, isPostgresOnly, runsAlone, runsOnce, TEST_DIRECTORY } from './test-files.js'

const BUNDLE_CLI = 'dist/bundle/cli.js'

interface PassResult extends TapTally {
  pass: string
  code: number | null
  /** Wall time of the pass, in milliseconds. */
  duration: number
  /** The pass's full TAP output. */
  log: string
}

// Every test's line and everything the tests print, one TAP file per pass; the terminal gets one line per file.
const LOG_DIRECTORY = 'test-results'
const REPORTER = './scripts/file-reporter.mjs'

async function runPass(store: 'sqlite' | 'postgres', files: string[], concurrency = 2) {
  const pass = `${store} pass${concurrency === 1 ? ', one file at a time' : ''}`
  const log = join(LOG_DIRECTORY, `${pass.replace(/[^a-z0-9]+/gi, '-').replace(/-+$/, '')}.tap`)
  process.stdout.write(`\n# ${pass}: ${files.length} files\n`)
  const started = performance.now()
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${concurrency}`,
      // Per test, and per file as a whole: the CLI's file starts some ninety processes, which takes minutes on a
      // loaded machine.
      '--test-timeout=360000',
      `--test-reporter=${REPORTER}`,
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${log}`,
      ...files,
    ],
    {
      env: { ...process.env, PETSTORE_TEST_STORE: store, PETSTORE_TEST_CLI: BUNDLE_CLI },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  )
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  const tally = tallyText(emptyTally(), existsSync(log) ? readFileSync(log, 'utf8') : '')
  return { ...tally, pass, code, duration: performance.now() - started, log } satisfies PassResult
}

/**
 * Builds dist/ (incrementally, so quick when it is current): the tests that start the petstore command as a process
 * start the production bundle, what npm start and the Docker image run.
 */
function build(): Promise<number | null> {
  process.stdout.write('\n# npm run build (the tests start the petstore command from its bundle)\n')
  const child = spawn('npm', ['run', 'build', '--silent'], { stdio: ['ignore', 'inherit', 'inherit'] })
  return new Promise((resolve) => child.on('close', resolve))
}

const minutes = (milliseconds: number) =>
  `${Math.floor(milliseconds / 60_000)} min ${Math.round((milliseconds % 60_000) / 1000)} s`

type Store = 'sqlite' | 'postgres'
const STORES: readonly Store[] = ['sqlite', 'postgres']

/** The store options and file names given after `npm test --`; a mistake stops the run with exit code 2. */
function parseArguments(args: string[]): { stores: Set<Store>; names: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { store: { type: 'string', multiple: true } },
      allowPositionals: true,
      strict: true,
    })
    const stores = values.store ?? [...STORES]
    const wrong = stores.filter((store) => !(STORES as string[]).includes(store))
    if (wrong.length > 0) throw new Error(`--store takes sqlite or postgres, not ${wrong.join(', ')}`)
    return { stores: new Set(stores as Store[]), names: positionals }
  } catch (error) {
    process.stderr.write(`npm test: ${(error as Error).message}\n`)
    process.exit(2)
  }
}

// `npm test -- pets-create.test.ts test/orders/orders-list.test.ts` runs only those files (a folder: all of its
// files), each in the passes it belongs to (test-files.ts); `npm test -- --store sqlite` only the SQLite passes
// (SQLite, then the file that runs alone), `--store postgres` only PostgreSQL's.
const { stores, names } = parseArguments(process.argv.slice(2))
const { chosen: files, unknown } = chooseTestFiles(findTestFiles(), names)
if (unknown.length > 0) {
  process.stderr.write(`No such test file or folder in ${TEST_DIRECTORY}/: ${unknown.join(', ')}\n`)
  process.exit(2)
}
const sqlite = stores.has('sqlite')
const postgres = stores.has('postgres') && Boolean(process.env.TEST_DATABASE_URL)
if (stores.has('postgres') && !postgres && !sqlite) {
  process.stderr.write(
    'npm test: --store postgres needs TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)\n',
  )
  process.exit(2)
}
const postgresFiles = files.filter((file) => !runsOnce(file) && !runsAlone(file))
const sqliteFiles = sqlite ? files.filter((file) => !isPostgresOnly(file) && !runsAlone(file)) : []
const aloneFiles = sqlite ? files.filter(runsAlone) : []
const postgresNotRun = stores.has('postgres')
  ? 'skipped (set TEST_DATABASE_URL to run it; in CI it is mandatory)'
  : 'not run (--store sqlite)'

const sqliteCount = sqliteFiles.length + aloneFiles.length
const planned = [
  ...(sqlite
    ? [
        names.length === 0
          ? 'every test file on SQLite'
          : `${sqliteCount} test file${sqliteCount === 1 ? '' : 's'} on SQLite`,
      ]
    : []),
  ...(postgres
    ? [
        `${postgresFiles.length}${sqlite ? ' again' : ` test file${postgresFiles.length === 1 ? '' : 's'}`} on ` +
          'PostgreSQL',
      ]
    : []),
]
const expected = sqlite && postgres ? '12 minutes (PostgreSQL pass included)' : sqlite ? '5 minutes' : '6 minutes'

mkdirSync(LOG_DIRECTORY, { recursive: true })
process.stdout.write(
  [
    `npm test on Node.js ${process.version}: ${planned.join(', ')}.`,
    names.length === 0 ? `Expect about ${expected} on 2 cores.` : 'A subset: seconds to a few minutes.',
    postgres
      ? `PostgreSQL pass: on ${process.env.TEST_DATABASE_URL?.replace(/\/\/[^@/]*@/, '//…@')}.`
      : `PostgreSQL pass: ${postgresNotRun}.`,
    'Tests that need Chromium, nginx or Redis are skipped without them (except in CI), and listed at the end.',
    `One line per file here; every test's result and output in ${LOG_DIRECTORY}/*.tap.`,
    '',
  ].join('\n'),
)

const results: PassResult[] = []
const built = await build()
if (built !== 0) {
  results.push({
    ...emptyTally(),
    pass: 'build',
    failed: 1,
    failures: [{ name: 'npm run build', location: '' }],
    code: built,
    duration: 0,
    log: '(npm run build)',
  })
} else {
  if (sqliteFiles.length > 0) results.push(await runPass('sqlite', sqliteFiles))
  if (aloneFiles.length > 0) results.push(await runPass('sqlite', aloneFiles, 1))
  if (postgres && postgresFiles.length > 0) results.push(await runPass('postgres', postgresFiles))
}
if (!postgres && process.env.CI && stores.has('postgres')) {
  process.stderr.write('TEST_DATABASE_URL must be set in CI: the PostgreSQL pass may not be skipped.\n')
  process.exitCode = 1
}

const skipped: (Skip & { pass: string })[] = results.flatMap((result) =>
  result.skipped.map((skip) => ({ ...skip, pass: result.pass })),
)
const passed = results.reduce((sum, result) => sum + result.passed, 0)
const failed = results.reduce((sum, result) => sum + result.failed, 0)
// A pass that failed without a failing test (a file that would not load, a crashed runner) still fails npm test.
if (results.some((result) => result.code !== 0)) process.exitCode = 1
process.stdout.write('\nsummary\n')
for (const result of results)
  process.stdout.write(
    `  ${result.pass}: ${result.passed} passed, ${result.failed} failed, ${result.skipped.length} skipped` +
      ` in ${minutes(result.duration)}${result.code === 0 ? '' : ` (exit code ${result.code})`}; log: ${result.log}\n`,
  )
if (!postgres) process.stdout.write(`  postgres pass: ${postgresNotRun}\n`)
process.stdout.write(`total: ${passed} passed, ${failed} failed, ${skipped.length} skipped\n`)
// Every failure and every skip, with its reason, where they cannot be missed: the last lines of the output.
for (const result of results)
  for (const failure of result.failures)
    process.stdout.write(
      `failed (${result.pass}): ${failure.name}${failure.location ? ` (${failure.location})` : ''}\n`,
    )
for (const skip of skipped)
  process.stdout.write(`skipped (${skip.pass}): ${skip.name}${skip.reason ? ` (${skip.reason})` : ''}\n`)
