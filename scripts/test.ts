// npm test: every test file on SQLite; then, when TEST_DATABASE_URL is set, every store-dependent file again
// on PostgreSQL (each file in a schema of its own). In CI the PostgreSQL pass is mandatory, never skipped.
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'

// Files whose subject does not depend on the store (configuration, the CLI's own SQLite checks, the
// browser rendering of /docs) or is SQLite's own read path (JSON made in SQL, the per-turn data version):
// run once, on SQLite.
const STORE_INDEPENDENT = new Set(['config.test.ts', 'pet-json.test.ts', 'read-version-per-turn.test.ts', 'cli.test.ts', 'first-run.test.ts', 'docs-page.test.ts'])
// Files that measure latency (the server's time-outs against slow clients, not the store): run once, on
// SQLite, by themselves after the other files, so that no other test file competes for the two cores.
const ALONE = new Set(['slow-clients.test.ts'])
// Files about PostgreSQL itself (its outages): run only in the PostgreSQL pass.
const POSTGRES_ONLY = (file: string) => file.startsWith('postgres-')
// Files that start the petstore command as a process (serve, signals, migrate, keys, cross-process reads):
// run once more against the production bundle that npm start and the Docker image run (dist/bundle/cli.js).
const BUNDLE = ['cli.test.ts', 'first-run.test.ts', 'read-cache.test.ts', 'group-commit.test.ts', 'shutdown.test.ts', 'idempotency-instances.test.ts']
const BUNDLE_CLI = 'dist/bundle/cli.js'

interface Totals { passed: number; failed: number; skipped: number }

function runPass(store: 'sqlite' | 'postgres', files: string[], concurrency = 2, cli?: string): Promise<Totals & { code: number | null }> {
  process.stdout.write(`\n# ${store} pass${cli ? ` with ${cli}` : ''}: ${files.length} files${concurrency === 1 ? ', one at a time' : ''}\n`)
  const child = spawn(process.execPath, [
    '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=180000', ...files.map((file) => `test/${file}`),
  ], { env: { ...process.env, PETSTORE_TEST_STORE: store, ...(cli ? { PETSTORE_TEST_CLI: cli } : {}) }, stdio: ['ignore', 'pipe', 'inherit'] })
  const totals: Totals = { passed: 0, failed: 0, skipped: 0 }
  let pending = ''
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk)
    pending += chunk.toString()
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      const match = /^# (pass|fail|cancelled|skipped) (\d+)$/.exec(line)
      if (match?.[1] === 'pass') totals.passed += Number(match[2])
      // A test cancelled because its before hook failed did not pass: it counts as failed.
      if (match?.[1] === 'fail' || match?.[1] === 'cancelled') totals.failed += Number(match[2])
      if (match?.[1] === 'skipped') totals.skipped += Number(match[2])
    }
  })
  return new Promise((resolve) => child.on('close', (code) => resolve({ ...totals, code })))
}

/** Builds dist/ (incrementally, so quick when it is current), as the bundle pass tests what npm start runs. */
function build(): Promise<number | null> {
  process.stdout.write('\n# npm run build (for the bundle pass)\n')
  const child = spawn('npm', ['run', 'build', '--silent'], { stdio: ['ignore', 'inherit', 'inherit'] })
  return new Promise((resolve) => child.on('close', resolve))
}

const files = readdirSync('test').filter((file) => file.endsWith('.test.ts')).sort()
const results = [
  await runPass('sqlite', files.filter((file) => !POSTGRES_ONLY(file) && !ALONE.has(file))),
  await runPass('sqlite', files.filter((file) => ALONE.has(file)), 1),
]
const built = await build()
results.push(built === 0 ? await runPass('sqlite', BUNDLE, 2, BUNDLE_CLI) : { passed: 0, failed: 1, skipped: 0, code: built })

if (process.env.TEST_DATABASE_URL) {
  results.push(await runPass('postgres', files.filter((file) => !STORE_INDEPENDENT.has(file) && !ALONE.has(file))))
} else if (process.env.CI) {
  process.stderr.write('TEST_DATABASE_URL must be set in CI: the PostgreSQL pass may not be skipped.\n')
  process.exitCode = 1
} else {
  process.stdout.write('\n# PostgreSQL pass not run: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it.\n')
}

const total = results.reduce((sum, result) => ({
  passed: sum.passed + result.passed, failed: sum.failed + result.failed, skipped: sum.skipped + result.skipped,
}), { passed: 0, failed: 0, skipped: 0 })
if (results.some((result) => result.code !== 0)) process.exitCode = 1
process.stdout.write(`\ntotal: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`)
