// `petstore serve` on a first run whose standard output is a pipe that its reader has not emptied: the key's write
// waits for the reader, and the service starts all the same. Stopped before the reader took anything, it must not
// leave the key stored: the process would end with the write still waiting, the key seen by nobody, and every
// later start would print none (they print one only while no key is stored).
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { closeSync, constants, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { cliArguments } from '../helpers/cli-path.js'
import { freePort } from '../helpers/process.js'
import { makeTempDir } from '../helpers/temp.js'

/** The names of the stored keys; none while the database or its tables are still to be made. */
function storedKeyNames(file: string): string[] {
  let handle: SqliteDatabase.Database | undefined
  try {
    handle = new SqliteDatabase(file, { readonly: true, fileMustExist: true })
    return (handle.prepare('select name from api_keys order by id').all() as { name: string }[]).map((row) => row.name)
  } catch {
    return []
  } finally {
    handle?.close()
  }
}

it('petstore serve stopped before standard output took the first-run key withdraws the key, saying so', async () => {
  const cwd = makeTempDir()
  const file = join(cwd, 'data', 'petstore.db')
  // A pipe nobody reads, full before the service writes: opened here for reading and writing, and filled.
  const fifo = join(cwd, 'stdout')
  execFileSync('mkfifo', [fifo])
  const pipe = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK)
  try {
    for (;;) writeSync(pipe, Buffer.alloc(4096))
  } catch (error) {
    assert.equal((error as { code?: unknown }).code, 'EAGAIN')
  }
  const port = await freePort()
  const child = spawn(process.execPath, cliArguments(['serve']), {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', PORT: String(port) },
    stdio: ['ignore', pipe, 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<unknown>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })))
  try {
    // Issued once the service listens; its write then waits for the pipe.
    for (const deadline = Date.now() + 60_000; storedKeyNames(file).length === 0;) {
      assert.ok(Date.now() < deadline, `no key issued: ${stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`)
    assert.deepEqual([ready.status, await ready.json()], [200, { status: 'ready' }])

    child.kill('SIGTERM')
    assert.deepEqual(await exited, { code: 0, signal: null })
    assert.equal(
      stderr,
      'petstore: warning: the first-run API key was not taken from standard output before the service stopped; it ' +
        'was withdrawn: start again with standard output readable to get one, or create one with petstore keys ' +
        'create --name NAME\n',
    )
    assert.deepEqual(storedKeyNames(file), [])
  } finally {
    child.kill('SIGKILL')
    closeSync(pipe)
    rmSync(cwd, { recursive: true, force: true })
  }
})
