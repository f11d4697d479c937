// The follower of docs/events.md (the shell lines from `# A follower` to `done`) is run as written, with bash and
// curl, against a real server: it prints every event on standard output, each long poll from where the last one
// ended; it stops on 401 once its key is revoked; and it leaves no temporary file behind, however it ends. So
// the example cannot drift from the service.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { issueApiKey, revokeKey } from '../../src/keys/issue-key.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const PAGE = 'docs/events.md'

function followerScript(markdown: string): string {
  const script = /^# A follower[^\n]*\n(?:#[^\n]*\n)*([\s\S]*?^done)$/m.exec(markdown)?.[1]
  assert.ok(script, `${PAGE} has a follower from "# A follower" to "done"`)
  // The temporary file's name, for the test to check that it is gone.
  return script.replace(/^(headers=\$\(mktemp\).*)$/m, '$1\necho "$headers" >&2')
}

interface Follower {
  process: ChildProcess
  stdout: () => string
  stderr: () => string
  exited: Promise<number | null>
}

function follow(server: TestServer, key: string): Follower {
  let [stdout, stderr] = ['', '']
  const child = spawn('bash', ['-c', followerScript(readFileSync(PAGE, 'utf8'))], {
    env: { PATH: process.env.PATH ?? '', API: `${server.baseUrl}/v1`, KEY: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { process: child, stdout: () => stdout, stderr: () => stderr, exited }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const eventsPrinted = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('['))
    .flatMap((line) => JSON.parse(line) as { id: number; type: string; data: { pet: { name: string } } }[])
    .map(({ id, type, data }) => [id, type, data.pet.name])

describe(`the event follower of ${PAGE}`, () => {
  let server: TestServer
  const running: ChildProcess[] = []

  before(async () => {
    server = await startTestServer()
  })
  after(async () => {
    for (const child of running) child.kill('SIGKILL')
    await server?.close()
  })

  const create = async (name: string) =>
    assert.equal((await server.request('/v1/pets', { json: { name, categoryId: 1 } })).status, 201)

  it('prints each event once, in order, and stops on 401 once its key is revoked, removing its file', async () => {
    const { key, row } = await issueApiKey(server.store, 'follower', { scopes: ['events:read'] })
    await create('First')
    const follower = follow(server, key)
    running.push(follower.process)
    await until(() => eventsPrinted(follower.stdout()).length === 1, 'the first event')
    await create('Second')
    await create('Third')
    await until(() => eventsPrinted(follower.stdout()).length === 3, 'the events created while it waits')

    await revokeKey(server.store, row.id, new Date().toISOString())
    // The waiting long poll answers when the next event comes, with 401: the key is checked again first.
    await create('Unseen')
    assert.equal(await follower.exited, 0)
    assert.deepEqual(eventsPrinted(follower.stdout()), [
      [1, 'pet.created', 'First'],
      [2, 'pet.created', 'Second'],
      [3, 'pet.created', 'Third'],
    ])
    const [file, ...rest] = follower.stderr().trim().split('\n')
    assert.deepEqual(rest, ['follower stopped at after=3 (the body above says why)'])
    assert.match(follower.stdout(), /"code":"unauthorized"/)
    assert.equal(existsSync(file ?? ''), false, 'the temporary file is removed')
  })

  it('removes its temporary file when it is stopped with SIGTERM', async () => {
    const { key } = await issueApiKey(server.store, 'stopped follower', { scopes: ['events:read'] })
    const follower = follow(server, key)
    running.push(follower.process)
    await until(() => follower.stderr().includes('\n'), 'the name of its file')
    const file = follower.stderr().trim()
    assert.equal(existsSync(file), true)
    // The signal is taken once the waiting curl ends: an event ends the wait.
    follower.process.kill('SIGTERM')
    await create('Wakes it')
    assert.equal(await follower.exited, 1)
    assert.equal(existsSync(file), false, 'the temporary file is removed')
  })
})
