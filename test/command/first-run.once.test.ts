// `petstore serve` as an operator starts it: a separate process, configured by environment variables. On a
// fresh store with no static keys it prints one API key, once; SIGTERM and SIGINT shut it down cleanly.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { closeSync, openSync, realpathSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { freePort, waitUntilServing } from '../helpers/process.js'
import { makeTempDir } from '../helpers/server.js'
import { cliArguments } from '../helpers/cli-path.js'

const STATIC_KEY = 'static-first-run-key-0123456789'

function firstRunMessage(key: string): string {
  return (
    '\nFirst run: created an API key. It is shown only this once; store it now:\n\n' +
    `    ${key}\n\n` +
    'Use it as "Authorization: Bearer <key>". Create more with: npx petstore keys create --name NAME\n\n'
  )
}

interface ServeProcess {
  baseUrl: string
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** The exit code and signal, once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const running = new Set<ChildProcess>()

/** `output`: a pipe read here, one whose reader is gone before the server writes, or a file descriptor. */
function spawnServe(
  cwd: string,
  env: Record<string, string>,
  port: number,
  output: 'pipe' | 'closed' | number = 'pipe',
): ServeProcess {
  const child = spawn(process.execPath, cliArguments(['serve']), {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', output === 'closed' ? 'pipe' : output, 'pipe'],
  })
  if (output === 'closed') child.stdout?.destroy()
  running.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => {
      running.delete(child)
      resolve({ code, signal })
    })
  })
  return { baseUrl: `http://127.0.0.1:${port}`, child, stdout: () => stdout, stderr: () => stderr, exited }
}

/** Starts `petstore serve` and waits until it answers /healthz (it listens on the default host, 127.0.0.1). */
async function startServe(cwd: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const server = spawnServe(cwd, env, 0)
  server.baseUrl = await waitUntilServing(server.child, () => server.stdout() + server.stderr(), 60_000)
  return server
}

/** Sends the signal and resolves with how the process ended. */
async function stop(server: ServeProcess, signal: NodeJS.Signals = 'SIGTERM') {
  server.child.kill(signal)
  return server.exited
}

/** Waits until the process has printed a first-run key, and returns it. */
async function printedKey(server: ServeProcess): Promise<string> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const match = /^ {4}(pst_[A-Za-z0-9_-]{43})$/m.exec(server.stdout())
    if (match?.[1]) return match[1]
    if (Date.now() > deadline) throw new Error(`no key printed: ${server.stdout()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

function storedKeys(file: string): { name: string; key_hash: string }[] {
  const handle = new SqliteDatabase(file, { readonly: true })
  try {
    return handle.prepare('select name, key_hash from api_keys order by id').all() as {
      name: string
      key_hash: string
    }[]
  } finally {
    handle.close()
  }
}

function get(server: ServeProcess, path: string, key?: string): Promise<Response> {
  return fetch(server.baseUrl + path, { headers: key ? { authorization: `Bearer ${key}` } : {} })
}

describe('petstore serve: first run', () => {
  const directories: string[] = []
  function directory(): string {
    const created = realpathSync(makeTempDir())
    directories.push(created)
    return created
  }
  after(() => {
    for (const child of running) child.kill('SIGKILL')
    for (const created of directories) rmSync(created, { recursive: true, force: true })
  })

  it('with no configuration, prints one key once; it works over HTTP; the next start prints none', async () => {
    const cwd = directory()
    const file = join(cwd, 'data', 'petstore.db')

    const first = await startServe(cwd)
    const key = await printedKey(first)
    const listed = await get(first, '/v1/pets', key)
    assert.equal(listed.status, 200)
    assert.deepEqual(await listed.json(), [])
    const refused = await get(first, '/v1/pets')
    assert.equal(refused.status, 401)
    await refused.arrayBuffer()
    assert.deepEqual(storedKeys(file), [{ name: 'initial', key_hash: createHash('sha256').update(key).digest('hex') }])

    assert.deepEqual(await stop(first, 'SIGTERM'), { code: 0, signal: null })
    assert.equal(first.stdout(), firstRunMessage(key))
    assert.equal(first.stderr(), '')

    const second = await startServe(cwd)
    const again = await get(second, '/v1/pets', key)
    assert.equal(again.status, 200)
    assert.deepEqual(await again.json(), [])
    assert.deepEqual(await stop(second, 'SIGINT'), { code: 0, signal: null })
    // Read after exit, so nothing the process printed can still be on its way.
    assert.equal(second.stdout(), '')
    assert.equal(second.stderr(), '')
    assert.equal(storedKeys(file).length, 1)
  })

  it('with PETSTORE_API_KEYS set, creates and prints no key; the static key works', async () => {
    const cwd = directory()
    const server = await startServe(cwd, { DATABASE_URL: 'file:store/pets.db', PETSTORE_API_KEYS: STATIC_KEY })
    const listed = await get(server, '/v1/pets', STATIC_KEY)
    assert.equal(listed.status, 200)
    assert.deepEqual(await listed.json(), [])
    assert.deepEqual(await stop(server), { code: 0, signal: null })
    assert.equal(server.stdout(), '')
    assert.equal(server.stderr(), '')
    assert.deepEqual(storedKeys(join(cwd, 'store', 'pets.db')), [])
  })

  it('a start that cannot listen exits 1 with one line and leaves the first-run key to the next start', async () => {
    const cwd = directory()
    const file = join(cwd, 'data', 'petstore.db')
    const port = await freePort()
    const blocker: Server = createServer()
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve))
    try {
      const failed = spawnServe(cwd, {}, port)
      assert.deepEqual(await failed.exited, { code: 1, signal: null })
      assert.equal(failed.stdout(), '')
      assert.equal(
        failed.stderr(),
        `petstore: port ${port} on 127.0.0.1 is already in use (listen EADDRINUSE), by another petstore or ` +
          `another program; stop it, or set PORT to a free port (e.g. PORT=${port + 1}, if nothing uses it)\n`,
      )
      assert.deepEqual(storedKeys(file), [])
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }

    const next = await startServe(cwd)
    const key = await printedKey(next)
    const listed = await get(next, '/v1/pets', key)
    assert.equal(listed.status, 200)
    await listed.arrayBuffer()
    assert.deepEqual(await stop(next), { code: 0, signal: null })
    assert.equal(next.stdout(), firstRunMessage(key))
  })

  for (const [output, code] of [
    ['a pipe whose reader is gone', 'EPIPE'],
    ['a full disk (/dev/full)', 'ENOSPC'],
  ] as const) {
    it(`standard output ${output}: keeps serving, withdraws the unseen key; the next start prints one`, async () => {
      const cwd = directory()
      const file = join(cwd, 'data', 'petstore.db')
      const port = await freePort()
      const full = code === 'ENOSPC' ? openSync('/dev/full', 'w') : undefined
      const server = spawnServe(cwd, {}, port, full ?? 'closed')
      if (full !== undefined) closeSync(full)
      // Its warning is the one thing it can tell: the first line on stderr, or the process ended without one.
      const warned = new Promise<void>((resolve) => {
        server.child.stderr?.on('data', () => {
          if (server.stderr().includes('\n')) resolve()
        })
      })
      await Promise.race([warned, server.exited])
      assert.equal(
        server.stderr(),
        `petstore: warning: the first-run API key could not be written to standard output (${code}); it was ` +
          'withdrawn: start again with standard output readable to get one, or create one with petstore keys ' +
          'create --name NAME\n',
      )
      assert.deepEqual(storedKeys(file), [])
      const ready = await get(server, '/readyz')
      assert.deepEqual([ready.status, await ready.json()], [200, { status: 'ready' }])
      assert.deepEqual(await stop(server), { code: 0, signal: null })

      const next = await startServe(cwd)
      const key = await printedKey(next)
      assert.deepEqual(
        storedKeys(file).map(({ name, key_hash }) => [name, key_hash]),
        [['initial', createHash('sha256').update(key).digest('hex')]],
      )
      assert.deepEqual(await stop(next), { code: 0, signal: null })
      assert.equal(next.stdout(), firstRunMessage(key))
    })
  }

  it('names its address and database in the start-up line, and warns on stderr about a misspelt variable', async () => {
    const cwd = directory()
    const server = await startServe(cwd, {
      LOG_LEVEL: 'info',
      PETSTORE_API_KEYS: STATIC_KEY,
      DATABSE_URL: 'postgres://u:secret@db.internal/petstore',
    })
    assert.deepEqual(await stop(server), { code: 0, signal: null })
    const first = JSON.parse(server.stdout().split('\n')[0] ?? '') as { level: number; msg: string }
    assert.deepEqual(
      [first.level, first.msg],
      [30, `Server listening at ${server.baseUrl}, using SQLite database ${join(cwd, 'data', 'petstore.db')}`],
    )
    assert.equal(
      server.stderr(),
      'petstore: warning: DATABSE_URL is set but petstore does not read it; did you mean DATABASE_URL?\n',
    )
  })
})
