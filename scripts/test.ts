// npm test: every test file on SQLite; then, when TEST_DATABASE_URL is set, every store-dependent file again
// on PostgreSQL (each file in a schema of its own). In CI the PostgreSQL pass is mandatory, never skipped.
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { emptyTally, tallyLine, type Skip, type TapTally } from './tap-tally.js'

// Files whose subject does not depend on the store (configuration, the CLI's own SQLite checks, the
// browser rendering of /docs and a browser's EventSource, the compose file, the locked engines, this runner's
// tally, the README's claims about keys) or is SQLite's own read path (JSON made in SQL), or a helper tested
// alone (the per-turn data version and batches), or the client's packaging, types and webhook signatures: run once, on SQLite.
const STORE_INDEPENDENT = new Set([
  'config.test.ts',
  'pet-json.test.ts',
  'read-version-per-turn.test.ts',
  'batch-per-turn.test.ts',
  'cli.test.ts',
  'first-run.test.ts',
  'docs-page.test.ts',
  'compose.test.ts',
  'engines.test.ts',
  'tap-tally.test.ts',
  'key-claims.test.ts',
  'json-scan.test.ts',
  'operator-errors.test.ts',
  'log-pipe.test.ts',
  'npm-start.test.ts',
  'events-browser.test.ts',
  'webhook-addresses.test.ts',
  'readme-webhooks.test.ts',
  'client-pack.test.ts',
  'client-types.test.ts',
  'client-webhook.test.ts',
  // The contract: the document and its gates (the headers test drives the store, so it runs on both).
  'openapi-gates.test.ts',
  'openapi-contract.test.ts',
  'is-main.test.ts',
  // Moving a shop between the two stores: each test names the stores it moves between.
  'move-round-trip.test.ts',
  'move-refusals.test.ts',
])
// Files that measure latency (the server's time-outs against slow clients, not the store): run once, on
// SQLite, by themselves after the other files, so that no other test file competes for the two cores.
const ALONE = new Set(['slow-clients.test.ts'])
// Files about PostgreSQL itself (its outages): run only in the PostgreSQL pass.
const POSTGRES_ONLY = (file: string) => file.startsWith('postgres-')
// Files that start the petstore command as a process (serve, signals, migrate, keys, cross-process reads):
// run once more against the production bundle that npm start and the Docker image run (dist/bundle/cli.js).
const BUNDLE = [
  'cli.test.ts',
  'first-run.test.ts',
  'read-cache.test.ts',
  'group-commit.test.ts',
  'shutdown.test.ts',
  'idempotency-instances.test.ts',
  'log-pipe.test.ts',
  'operator-errors.test.ts',
  'events-connections.test.ts',
  'webhooks-crash.test.ts',
  'cli-webhooks.test.ts',
]
const BUNDLE_CLI = 'dist/bundle/cli.js'

interface PassResult extends TapTally {
  pass: string
  code: number | null
}

function runPass(store: 'sqlite' | 'postgres', files: string[], concurrency = 2, cli?: string): Promise<PassResult> {
  const pass = `${store} pass${cli ? ` with ${cli}` : ''}`
  process.stdout.write(`\n# ${pass}: ${files.length} files${concurrency === 1 ? ', one at a time' : ''}\n`)
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${concurrency}`,
      '--test-timeout=180000',
      ...files.map((file) => `test/${file}`),
    ],
    {
      env: { ...process.env, PETSTORE_TEST_STORE: store, ...(cli ? { PETSTORE_TEST_CLI: cli } : {}) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const tally = emptyTally()
  let pending = ''
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk)
    pending += chunk.toString()
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) tallyLine(tally, line)
  })
  return new Promise((resolve) => child.on('close', (code) => resolve({ ...tally, pass, code })))
}

/** Builds dist/ (incrementally, so quick when it is current), as the bundle pass tests what npm start runs. */
function build(): Promise<number | null> {
  process.stdout.write('\n# npm run build (for the bundle pass)\n')
  const child = spawn('npm', ['run', 'build', '--silent'], { stdio: ['ignore', 'inherit', 'inherit'] })
  return new Promise((resolve) => child.on('close', resolve))
}

/**
 * Which passes to run: both stores by default (npm test). CI runs them on two Node.js lines, each store on one
 * (`npm test -- --store sqlite` on one, `npm test -- --store postgres` on the other), to stay within its time.
 */
function chosenStores(args: string[]): Set<'sqlite' | 'postgres'> {
  const { values } = parseArgs({ args, options: { store: { type: 'string', multiple: true } }, strict: true })
  const stores = values.store ?? ['sqlite', 'postgres']
  for (const store of stores)
    if (store !== 'sqlite' && store !== 'postgres') throw new Error(`--store takes sqlite or postgres, not ${store}`)
  return new Set(stores as ('sqlite' | 'postgres')[])
}

const stores = chosenStores(process.argv.slice(2))
const files = readdirSync('test')
  .filter((file) => file.endsWith('.test.ts'))
  .sort()
const results: PassResult[] = []
if (stores.has('sqlite')) {
  results.push(
    await runPass(
      'sqlite',
      files.filter((file) => !POSTGRES_ONLY(file) && !ALONE.has(file)),
    ),
    await runPass(
      'sqlite',
      files.filter((file) => ALONE.has(file)),
      1,
    ),
  )
  const built = await build()
  results.push(
    built === 0
      ? await runPass('sqlite', BUNDLE, 2, BUNDLE_CLI)
      : { pass: 'build', passed: 0, failed: 1, skipped: [], code: built },
  )
}

if (!stores.has('postgres')) {
  process.stdout.write('\n# PostgreSQL pass not run: --store sqlite was given.\n')
} else if (process.env.TEST_DATABASE_URL) {
  results.push(
    await runPass(
      'postgres',
      files.filter((file) => !STORE_INDEPENDENT.has(file) && !ALONE.has(file)),
    ),
  )
} else if (process.env.CI) {
  process.stderr.write('TEST_DATABASE_URL must be set in CI: the PostgreSQL pass may not be skipped.\n')
  process.exitCode = 1
} else {
  process.stdout.write(
    '\n# PostgreSQL pass not run: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it.\n',
  )
}

const skipped: (Skip & { pass: string })[] = results.flatMap((result) =>
  result.skipped.map((skip) => ({ ...skip, pass: result.pass })),
)
const passed = results.reduce((sum, result) => sum + result.passed, 0)
const failed = results.reduce((sum, result) => sum + result.failed, 0)
if (results.some((result) => result.code !== 0)) process.exitCode = 1
process.stdout.write(`\ntotal: ${passed} passed, ${failed} failed, ${skipped.length} skipped\n`)
// Every skip, with its reason, where it cannot be missed: the last lines of the output.
for (const skip of skipped)
  process.stdout.write(`skipped (${skip.pass}): ${skip.name}${skip.reason ? ` (${skip.reason})` : ''}\n`)
