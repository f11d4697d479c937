// PostgreSQL's and Redis's clients are loaded only when DATABASE_URL / REDIS_URL ask for them (a SQLite
// instance's memory does without them): no module of the service may import them statically. Checked in a
// fresh process, whose CommonJS module cache shows what was loaded.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

const PROBE = `
const { createRequire } = await import('node:module')
const cache = createRequire(import.meta.url).cache
const paths = () => Object.keys(cache)
const loaded = () =>
  ['pg', 'ioredis'].filter((name) => paths().some((path) => path.includes('/node_modules/' + name + '/')))
await import('./src/app.ts')
const withTheApp = loaded()
await import('pg')
console.log(JSON.stringify({ withTheApp, afterImportingPg: loaded() }))
`

describe('database and Redis clients', () => {
  it("are not loaded by the service's own modules", () => {
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], {
      cwd: ROOT,
      encoding: 'utf8',
    })
    // The second count shows the probe sees a client once something does load it.
    assert.deepEqual(JSON.parse(output), { withTheApp: [], afterImportingPg: ['pg'] })
  })
})
