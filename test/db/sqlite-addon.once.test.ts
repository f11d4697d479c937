// The better-sqlite3 addon as built in this checkout survives what the service does to it: statements prepared and
// freed by the garbage collector while a worker thread (the webhook sender) runs beside the main thread. Built on
// Node 24 against the headers of a later 24.x than 24.0.0, better-sqlite3 12 aborts the process right there
// (`Assertion failed: (env) != nullptr` in RemoveEnvironmentCleanupHook, from Statement::~Statement): a build made
// the wrong way fails this file rather than crashing other files half-way. docs/operations.md says how to build it.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, it } from 'node:test'

const SCRIPT = `
import { createRequire } from 'node:module'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { Worker } from 'node:worker_threads'
setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc')
const worker = new Worker('setInterval(() => {}, 1000)', { eval: true })
await new Promise((resolve) => worker.once('online', resolve))
const Database = createRequire(process.cwd() + '/package.json')('better-sqlite3')
const db = new Database(':memory:')
db.exec('create table t (id integer primary key, name text)')
for (let round = 0; round < 20; round++) {
  for (let id = 0; id < 3000; id++) db.prepare('select id, name from t where id = ' + id).get()
  collectGarbage()
  await new Promise((resolve) => setTimeout(resolve, 10))
}
db.close()
await worker.terminate()
console.log('survived')
`

describe('the better-sqlite3 addon', () => {
  it(`survives freed statements beside a worker thread on this Node.js (${process.version})`, () => {
    const result = spawnSync(process.execPath, ['--input-type=module', '--eval', SCRIPT], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    assert.deepEqual(
      { status: result.status, signal: result.signal, stdout: result.stdout },
      { status: 0, signal: null, stdout: 'survived\n' },
      result.stderr,
    )
  })
})
