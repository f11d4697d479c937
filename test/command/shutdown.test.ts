// Graceful shutdown: in-flight requests finish, requests arriving while closing get 503 in the Error body,
// the database closes last; and the real process exits 0 on SIGTERM, a connection never used closed, not waited for.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { once } from 'node:events'
import http from 'node:http'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { cliArguments } from '../helpers/cli-path.js'
import { assertRawError, CORS } from '../helpers/error-assert.js'
import { openRawConnection } from '../helpers/raw-http.js'
import { spawnServer, waitUntilServing } from '../helpers/process.js'
import { makeTempDir, startTestServer, TEST_API_KEY } from '../helpers/server.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

function deferred<T = void>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

function get(
  url: string,
  agent: http.Agent,
  headers: http.OutgoingHttpHeaders = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          body += chunk
        })
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
      })
      .on('error', reject)
  })
}

describe('graceful shutdown in process', () => {
  it('finishes in-flight requests, refuses new ones with 503, then closes the database', async () => {
    const slowStarted = deferred()
    const releaseSlow = deferred()
    const preClose = deferred()
    const serverSockets: Socket[] = []
    const server = await startTestServer({
      beforeListen: (app) => {
        app.get('/test/slow', async () => {
          slowStarted.resolve()
          await releaseSlow.promise
          return { finished: true }
        })
        // Registered after the app's own preClose hooks, so the service already counts as closing here.
        app.addHook('preClose', async () => {
          preClose.resolve()
        })
        app.server.on('connection', (socket: Socket) => serverSockets.push(socket))
      },
    })
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const slow = get(`${server.baseUrl}/test/slow`, agent)
      await slowStarted.promise

      // An already-open keep-alive connection: one request answered, then the start of a second one. Node
      // closes idle connections when the server closes, but not one in the middle of a request head.
      const keptAlive = await openRawConnection(server.baseUrl)
      await keptAlive.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
      const first = await keptAlive.nextResponse()
      assert.equal(first.status, 200)
      assert.equal(first.headers.connection, 'keep-alive')
      const head = `GET /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n`
      await keptAlive.write(head)
      const serverSide = serverSockets.find((socket) => socket.remotePort === keptAlive.socket.localPort)
      assert.ok(serverSide)
      const sent = keptAlive.socket.bytesWritten
      while (serverSide.bytesRead < sent) await sleep(5)

      const closing = server.close()
      await preClose.promise
      await keptAlive.write('\r\n')
      const refused = await keptAlive.nextResponse()
      assertRawError(
        refused,
        { status: 503, code: 'unavailable', message: 'The service is shutting down; retry the request.' },
        { connection: 'close', 'retry-after': '1', 'cache-control': 'no-store', ...CORS },
      )
      await keptAlive.closed

      releaseSlow.resolve()
      const finished = await slow
      assert.equal(finished.status, 200)
      assert.deepEqual(JSON.parse(finished.body), { finished: true })
      // Its connection is not offered for reuse: the next request of that client goes elsewhere.
      assert.equal(finished.headers.connection, 'close')

      await closing
      await assert.rejects(
        server.store.admin.selectFrom('pets').selectAll().execute(),
        /driver has already been destroyed/,
      )
    } finally {
      releaseSlow.resolve()
      agent.destroy()
    }
  })
})

describe('graceful shutdown with a long poll waiting', () => {
  it('answers the long poll at once with [] and Connection: close, so its client reconnects elsewhere', async () => {
    const server = await startTestServer()
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const waiting = get(`${server.baseUrl}/v1/events?after=0&wait=30`, agent, {
        authorization: `Bearer ${TEST_API_KEY}`,
      })
      const isWaiting = async () =>
        (await (await server.request('/metrics')).text()).includes('\npetstore_event_long_polls_waiting 1\n')
      for (let tries = 0; !(await isWaiting()); tries++) {
        assert.ok(tries < 500, 'the long poll never started waiting')
        await sleep(10)
      }
      await server.close()
      const answered = await waiting
      assert.deepEqual([answered.status, answered.body, answered.headers.connection], [200, '[]', 'close'])
    } finally {
      agent.destroy()
    }
  })
})

describe('graceful shutdown of the process', () => {
  it('exits 0 on SIGTERM after logging "shutting down", without waiting for a connection never used', async () => {
    const directory = makeTempDir()
    const child = spawn(process.execPath, cliArguments(['serve']), {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: `file:${join(directory, 'p.db')}`,
        PETSTORE_API_KEYS: TEST_API_KEY,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        PUBLIC_BASE_URL: '',
        REDIS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.on('exit', (code, signal) => resolve({ code, signal }))
    })
    let running = true
    void exited.then(() => {
      running = false
    })
    try {
      const baseUrl = await waitUntilServing(child, () => `stdout: ${stdout} stderr: ${stderr}`)
      const port = Number(new URL(baseUrl).port)
      const listed = await fetch(`${baseUrl}/v1/pets`, {
        headers: { authorization: `Bearer ${TEST_API_KEY}` },
      })
      assert.equal(listed.status, 200)
      assert.deepEqual(await listed.json(), [])

      // A connection opened and never used (a browser's pre-connection): Node's close leaves it open, and waiting
      // for its idle time-out would outlast the shutdown's grace, which then exits 1 with the store still open.
      const unused = connect(port, '127.0.0.1')
      await once(unused, 'connect')
      const unusedClosed = once(unused, 'close')

      child.kill('SIGTERM')
      assert.deepEqual(await exited, { code: 0, signal: null }, `stderr: ${stderr}`)
      await unusedClosed
      assert.equal(unused.bytesRead, 0)
      const entries = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      const shutdown = entries.filter((entry) => entry.msg === 'shutting down')
      assert.equal(shutdown.length, 1, stdout)
      assert.equal(shutdown[0]?.signal, 'SIGTERM')
      assert.equal(shutdown[0]?.level, 30)
    } finally {
      if (running) child.kill('SIGKILL')
      rmSync(directory, { recursive: true, force: true })
    }
  })

  it('exits 1 once the grace period is over with a request still running, and says so in a JSON log line', async () => {
    const directory = makeTempDir()
    const server = await spawnServer(
      { DATABASE_URL: `file:${join(directory, 'p.db')}`, PETSTORE_API_KEYS: TEST_API_KEY, LOG_LEVEL: 'info' },
      { shutdownGraceMs: 300 },
    )
    try {
      // A create whose body never arrives in full: it runs until the grace period cuts it off. It waits for 100
      // Continue first, which proves the request is in its route (not a connection the shutdown closes at once).
      const upload = connect(Number(new URL(server.baseUrl).port), '127.0.0.1')
      await once(upload, 'connect')
      upload.on('error', () => {})
      const continued = new Promise<void>((resolve) => {
        let received = ''
        upload.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1')
          if (received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) resolve()
        })
      })
      upload.write(
        `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 30\r\nExpect: 100-continue\r\n\r\n',
      )
      await continued
      upload.write('{')
      server.child.kill('SIGTERM')
      assert.equal(await server.exited, 1, server.output())
      upload.destroy()
      const lines = server
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '')
      const notJson = lines.filter((line) => !line.startsWith('{'))
      assert.deepEqual(notJson, [], 'every line the process wrote is JSON')
      const cutOff = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry.level === 50)
      assert.deepEqual(
        cutOff.map(({ msg, graceMs }) => ({ msg, graceMs })),
        [{ msg: 'requests still running when the grace period ended were cut off; exit code 1', graceMs: 300 }],
      )
    } finally {
      server.child.kill('SIGKILL')
      await server.exited
      rmSync(directory, { recursive: true, force: true })
    }
  })
})
