// A key shown only once, on a standard output that is a pipe its reader has not emptied: the key's write waits for
// the reader (`petstore serve` starts all the same). A command stopped (SIGTERM) before the reader took anything
// must not leave the key stored: the process would end with the write still waiting, the key seen by nobody, and
// for the first-run key every later start would print none (they print one only while no key is stored).
import assert from 'node:assert/strict'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { closeSync, constants, openSync, realpathSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { cliArguments } from '../helpers/cli-path.js'
import { freePort, runCli } from '../helpers/process.js'
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

/** The writing end of a pipe nobody reads, full already: a named pipe in `directory`, opened here and filled. */
function fullPipe(directory: string): number {
  const fifo = join(directory, 'stdout')
  execFileSync('mkfifo', [fifo])
  const pipe = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK)
  try {
    for (;;) writeSync(pipe, Buffer.alloc(4096))
  } catch (error) {
    assert.equal((error as { code?: unknown }).code, 'EAGAIN')
  }
  return pipe
}

describe('a key whose standard output has not been read when the command is stopped', () => {
  let cwd: string
  let file: string
  let pipe: number
  let child: ChildProcess | undefined
  before(async () => {
    cwd = realpathSync(makeTempDir())
    file = join(cwd, 'data', 'petstore.db')
    pipe = fullPipe(cwd)
    assert.equal((await runCli(['migrate'], {}, { cwd })).code, 0)
  })
  after(() => {
    child?.kill('SIGKILL')
    closeSync(pipe)
    rmSync(cwd, { recursive: true, force: true })
  })

  /** Starts `petstore ARGS` with the full pipe as its standard output; resolves once a key named `name` is stored. */
  async function startUntilKeyStored(args: string[], name: string, env: Record<string, string> = {}) {
    const started = spawn(process.execPath, cliArguments(args), {
      cwd,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', pipe, 'pipe'],
    })
    child = started
    let stderr = ''
    started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const exited = new Promise<unknown>((resolve) => started.once('close', (code, signal) => resolve({ code, signal })))
    // The key is written to the pipe once it is stored; the write then waits.
    for (const deadline = Date.now() + 60_000; !storedKeyNames(file).includes(name);) {
      assert.ok(Date.now() < deadline, `no key stored: ${stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return { child: started, exited, stderr: () => stderr }
  }

  it('petstore serve: the first-run key is withdrawn, saying so, and the service exits 0', async () => {
    const port = await freePort()
    const serve = await startUntilKeyStored(['serve'], 'initial', { PORT: String(port) })
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`)
    assert.deepEqual([ready.status, await ready.json()], [200, { status: 'ready' }])

    serve.child.kill('SIGTERM')
    assert.deepEqual(await serve.exited, { code: 0, signal: null })
    assert.equal(
      serve.stderr(),
      'petstore: warning: the first-run API key was not taken from standard output before the service stopped; it ' +
        'was withdrawn: start again with standard output readable to get one, or create one with petstore keys ' +
        'create --name NAME\n',
    )
    assert.deepEqual(storedKeyNames(file), [])
  })

  it('petstore keys create: the key is withdrawn, saying so, and the command ends by the signal', async () => {
    // A key of its own first, so that the one created next is the only one to go.
    assert.equal((await runCli(['keys', 'create', '--name', 'kept', '--quiet'], {}, { cwd })).code, 0)
    const create = await startUntilKeyStored(['keys', 'create', '--name', 'unread'], 'unread')

    create.child.kill('SIGTERM')
    assert.deepEqual(await create.exited, { code: null, signal: 'SIGTERM' })
    assert.equal(
      create.stderr(),
      `petstore: using SQLite database ${file}\npetstore: the new key could not be written to standard output ` +
        '(SIGTERM); it was withdrawn, so no key was created\n',
    )
    assert.deepEqual(storedKeyNames(file), ['kept'])
  })
})
