// X-Request-Id on every response (and in the logs), the security headers, and CORS for browser clients.
import { staticKeyId } from '../../../src/keys/static-key-id.js'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, it } from 'node:test'
import { UUID } from '../../helpers/error-assert.js'
import { rawExchange } from '../../helpers/raw-http.js'
import { readWholeFeed } from '../../helpers/events.js'
import { logEntries, startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

const EXPOSED =
  'Link, Location, X-Request-Id, Deprecation, Sunset, WWW-Authenticate, Retry-After, RateLimit, ' +
  'RateLimit-Policy, Idempotent-Replayed, ETag, Allow, Accept-Patch, Accept-Encoding'

describe('X-Request-Id, security headers and CORS', () => {
  let server: TestServer
  let petId: number
  before(async () => {
    server = await startTestServer({
      beforeListen: (app) => {
        app.get('/test/internal-error', async () => {
          throw new Error('forced failure')
        })
      },
    })
    const created = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
    assert.equal(created.status, 201)
    petId = (await created.json()).id
  })
  after(() => server.close())

  function logEntriesFor(requestId: string): Record<string, unknown>[] {
    return logEntries<Record<string, unknown>>(server).filter((entry) => entry.reqId === requestId)
  }

  it('puts a generated X-Request-Id on every response, whatever its status', async () => {
    const cases: [number, () => Promise<Response>][] = [
      [200, () => server.request('/v1/pets')],
      [201, () => server.request('/v1/pets', { json: { name: 'Fido', categoryId: 2 } })],
      [400, () => server.request('/v1/pets?limit=0')],
      [401, () => server.request('/v1/pets', { auth: false })],
      [404, () => server.request('/v1/pets/999999')],
      [404, () => server.request('/nowhere', { auth: false })],
      [405, () => server.request('/v1/pets', { method: 'DELETE' })],
      [413, () => server.request('/v1/pets', { json: { name: 'R'.repeat(20_000), categoryId: 1 } })],
      [
        415,
        () => server.request('/v1/pets', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'Rex' }),
      ],
      [500, () => server.request('/test/internal-error', { auth: false })],
    ]
    const seen = new Set<string>()
    for (const [status, send] of cases) {
      const response = await send()
      await response.arrayBuffer()
      assert.equal(response.status, status)
      const requestId = response.headers.get('x-request-id') ?? ''
      assert.match(requestId, UUID, `status ${status}`)
      seen.add(requestId)
      // The logs carry the same id, so a client's report can be found.
      assert.ok(
        logEntriesFor(requestId).some((entry) => entry.msg === 'request completed'),
        `log for ${status}`,
      )
    }
    assert.equal(seen.size, cases.length, 'every request has its own id')
  })

  it('echoes a sane client-sent X-Request-Id and logs under it', async () => {
    for (const id of ['abc-123', 'trace.id:42_A', 'x'.repeat(128)]) {
      const response = await server.request('/v1/pets', { headers: { 'x-request-id': id } })
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('x-request-id'), id)
      await response.arrayBuffer()
      // One access-log line per request, written when the response has gone out.
      assert.deepEqual(
        logEntriesFor(id).map((entry) => entry.msg),
        ['request completed'],
      )
    }
  })

  it('writes one access-log line per request: method, target, status, time, client and key id', async () => {
    const response = await server.request('/v1/pets?limit=1', { headers: { 'x-request-id': 'access-log-1' } })
    assert.equal(response.status, 200)
    await response.arrayBuffer()
    const entries = logEntriesFor('access-log-1')
    assert.equal(entries.length, 1, JSON.stringify(entries))
    const { time, pid, hostname, responseTime, ...line } = entries[0] ?? {}
    assert.equal(typeof time, 'number')
    assert.equal(pid, process.pid)
    assert.equal(typeof hostname, 'string')
    assert.ok(typeof responseTime === 'number' && responseTime >= 0, `responseTime ${String(responseTime)}`)
    assert.deepEqual(line, {
      level: 30,
      reqId: 'access-log-1',
      method: 'GET',
      url: '/v1/pets?limit=1',
      statusCode: 200,
      remoteAddress: '127.0.0.1',
      // A static key's id: derived from the key through scrypt, never the key nor its digest.
      keyId: staticKeyId(TEST_API_KEY),
      msg: 'request completed',
    })

    // Without a valid key there is no key id. The refusal is this same line, with the answer's code and message:
    // no second line, so a flood of refused requests writes no more lines than requests.
    const refused = await server.request('/v1/pets', { auth: false, headers: { 'x-request-id': 'access-log-2' } })
    assert.equal(refused.status, 401)
    const { message } = (await refused.json()) as { message: string }
    const refusedLines = logEntriesFor('access-log-2')
    assert.deepEqual(
      refusedLines.map((entry) => ({
        ...entry,
        time: undefined,
        pid: undefined,
        hostname: undefined,
        responseTime: undefined,
      })),
      [
        {
          level: 30,
          time: undefined,
          pid: undefined,
          hostname: undefined,
          responseTime: undefined,
          reqId: 'access-log-2',
          method: 'GET',
          url: '/v1/pets',
          statusCode: 401,
          remoteAddress: '127.0.0.1',
          code: 'unauthorized',
          errorMessage: message,
          msg: 'request completed',
        },
      ],
    )
  })

  it('replaces an X-Request-Id that holds a key with a generated UUID, so that no key reaches the logs', async () => {
    const storedForm = `pst_${'A'.repeat(43)}`
    for (const id of [TEST_API_KEY, storedForm, `a.${storedForm}`, `zz-${storedForm}`, `x.${TEST_API_KEY}.y`]) {
      const response = await server.request('/v1/pets', { headers: { 'x-request-id': id } })
      assert.equal(response.status, 200)
      const given = response.headers.get('x-request-id') ?? ''
      assert.match(given, UUID, id)
      await response.arrayBuffer()
      assert.deepEqual(
        logEntriesFor(given).map((entry) => [entry.msg, entry.statusCode]),
        [['request completed', 200]],
      )
      assert.equal(server.logs.join('').includes(id), false)
    }
  })

  it('writes a static key a client put into the path or the query as [redacted] in the logs', async () => {
    // Percent-encoded whole, or a character of it only: a URL may encode any character.
    const everyCharacterEncoded = [...TEST_API_KEY]
      .map((char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
      .join('')
    const oneCharacterEncoded = `%${TEST_API_KEY.charCodeAt(0).toString(16)}${TEST_API_KEY.slice(1)}`
    // Encoded twice (`%2572` is `%72` encoded again), the first character or the last.
    const encodedTwice = `%25${TEST_API_KEY.charCodeAt(0).toString(16)}${TEST_API_KEY.slice(1)}`
    const last = TEST_API_KEY.length - 1
    const lastEncodedTwice = `${TEST_API_KEY.slice(0, last)}%25${TEST_API_KEY.charCodeAt(last).toString(16)}`
    const paths = [
      `/v1/${TEST_API_KEY}`,
      `/v1/pets?note=${TEST_API_KEY}`,
      `/v1/pets?limit=${TEST_API_KEY}`,
      `/v1/pets?note=${everyCharacterEncoded}`,
      `/v1/${oneCharacterEncoded}`,
      `/v1/${encodedTwice}`,
      `/v1/pets?note=${lastEncodedTwice}`,
    ]
    for (const [index, path] of paths.entries()) {
      const requestId = `static-key-in-url-${index}`
      const response = await server.request(path, { headers: { 'x-request-id': requestId } })
      await response.arrayBuffer()
      assert.notEqual(response.status, 200)
      const lines = logEntriesFor(requestId)
      assert.ok(lines.some((entry) => entry.msg === 'request completed'))
      for (const entry of lines) {
        assert.equal(JSON.stringify(entry).includes(TEST_API_KEY), false)
        const decodedOnce = decodeURIComponent(JSON.stringify(entry))
        assert.equal(decodedOnce.includes(TEST_API_KEY), false)
        assert.equal(decodeURIComponent(decodedOnce).includes(TEST_API_KEY), false)
      }
      assert.ok(lines.some((entry) => JSON.stringify(entry).includes('[redacted]')))
    }
  })

  /** http_requests_total of one route and status: 0 while it has no series. */
  const requestsCounted = async (route: string, status: number): Promise<number> => {
    const line = (await (await server.request('/metrics')).text())
      .split('\n')
      .find((text) => text.startsWith(`http_requests_total{method="GET",route="${route}",status_code="${status}"}`))
    return line === undefined ? 0 : Number(line.split(' ').at(-1))
  }

  it('writes the line of a request whose client left before its answer (a long poll given up) at once, and counts \
it as 499', async () => {
    const { hostname, port } = new URL(server.baseUrl)
    // At the newest event, where a long poll waits for the next.
    const newest = (await readWholeFeed((path, init) => server.request(path, init))).at(-1)?.id ?? 0
    const givenUpBefore = await requestsCounted('/v1/events', 499)
    const socket = connect(Number(port), hostname)
    socket.on('error', () => undefined)
    socket.write(
      `GET /v1/events?after=${newest}&wait=30 HTTP/1.1\r\nHost: localhost\r\n` +
        `Authorization: Bearer ${TEST_API_KEY}\r\nX-Request-Id: aborted-long-poll\r\n\r\n`,
    )
    const isWaiting = async () =>
      (await (await server.request('/metrics')).text()).includes('\npetstore_event_long_polls_waiting 1\n')
    for (let tries = 0; !(await isWaiting()); tries++) {
      assert.ok(tries < 500, 'the long poll never started waiting')
      await sleep(10)
    }
    socket.destroy()
    let lines = logEntriesFor('aborted-long-poll')
    for (let tries = 0; lines.length === 0; tries++, lines = logEntriesFor('aborted-long-poll')) {
      assert.ok(tries < 500, 'no line for the request')
      await sleep(10)
    }
    const [line] = lines
    assert.deepEqual(
      { ...line, time: undefined, pid: undefined, hostname: undefined },
      {
        level: 30,
        time: undefined,
        pid: undefined,
        hostname: undefined,
        reqId: 'aborted-long-poll',
        method: 'GET',
        url: `/v1/events?after=${newest}&wait=30`,
        remoteAddress: '127.0.0.1',
        keyId: staticKeyId(TEST_API_KEY),
        clientClosed: true,
        msg: 'request aborted by the client',
      },
    )
    assert.equal(lines.length, 1)
    assert.equal(await requestsCounted('/v1/events', 499), givenUpBefore + 1)
  })

  it('writes one line for an event stream whose client closes it, and counts it once with its status', async () => {
    const { hostname, port } = new URL(server.baseUrl)
    const streamsBefore = await requestsCounted('/v1/events/stream', 200)
    const socket = connect(Number(port), hostname)
    socket.on('error', () => undefined)
    const opened = new Promise<void>((resolve) => socket.once('data', () => resolve()))
    socket.write(
      `GET /v1/events/stream HTTP/1.1\r\nHost: localhost\r\n` +
        `Authorization: Bearer ${TEST_API_KEY}\r\nX-Request-Id: closed-stream\r\n\r\n`,
    )
    await opened
    socket.destroy()
    let lines = logEntriesFor('closed-stream')
    for (let tries = 0; lines.length === 0; tries++, lines = logEntriesFor('closed-stream')) {
      assert.ok(tries < 500, 'no line for the request')
      await sleep(10)
    }
    // A while longer, so that a second line for the request would be seen.
    await sleep(200)
    assert.deepEqual(
      logEntriesFor('closed-stream').map(({ msg, statusCode, clientClosed }) => ({ msg, statusCode, clientClosed })),
      [{ msg: 'request completed', statusCode: 200, clientClosed: true }],
    )
    assert.equal(await requestsCounted('/v1/events/stream', 200), streamsBefore + 1)
  })

  it('replaces an insane X-Request-Id with a generated UUID', async () => {
    for (const id of ['x'.repeat(129), 'y'.repeat(200), 'abc 123', 'abc\t123', '<script>', 'a/b', 'id;drop']) {
      const response = await server.request('/v1/pets', { headers: { 'x-request-id': id } })
      assert.equal(response.status, 200)
      assert.match(response.headers.get('x-request-id') ?? '', UUID, JSON.stringify(id))
      await response.arrayBuffer()
    }
    // Non-ASCII cannot be sent with fetch; Node passes such bytes through as Latin-1.
    const response = await rawExchange(
      server.baseUrl,
      Buffer.from(
        `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: caf\u00e9-1\r\nConnection: close\r\n\r\n`,
        'latin1',
      ),
    )
    assert.equal(response.status, 200)
    assert.deepEqual(JSON.parse(response.body), { status: 'ok' })
    assert.match(response.headers['x-request-id'] ?? '', UUID)
  })

  it('sends nosniff everywhere, no-store on /v1 responses, and no X-Powered-By', async () => {
    const responses = [
      [await server.request('/v1/pets'), 'no-store'],
      [await server.request(`/v1/pets/${petId}`), 'no-store'],
      [await server.request('/v1/pets', { auth: false }), 'no-store'],
      [await server.request('/v1/pets', { method: 'PUT' }), 'no-store'],
      [await server.request('/healthz', { auth: false }), null],
      [await server.request('/readyz', { auth: false }), null],
      [await server.request('/metrics', { auth: false }), null],
      [await server.request('/nowhere', { auth: false }), null],
    ] as const
    for (const [response, cacheControl] of responses) {
      await response.arrayBuffer()
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', response.url)
      assert.equal(response.headers.get('cache-control'), cacheControl, response.url)
      assert.equal(response.headers.get('x-powered-by'), null, response.url)
    }
    const raw = await rawExchange(server.baseUrl, 'NOT HTTP\r\n\r\n')
    assert.equal(raw.status, 400)
    assert.equal(raw.headers['x-content-type-options'], 'nosniff')
    assert.equal(raw.headers['cache-control'], 'no-store')
  })

  it('sends no-store on API responses however the request target is written (absolute-form, \
percent-encoded)', async () => {
    for (const target of [
      `${server.baseUrl}/v1/pets`,
      'http://elsewhere.example/v1/pets?limit=1',
      '/%761/pets',
      '/v1/%70ets',
      `/v1/pets/${petId}`,
      `/v1/p%65ts/${petId}`,
    ]) {
      const response = await rawExchange(
        server.baseUrl,
        `GET ${target} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nConnection: ` +
          `close\r\n\r\n`,
      )
      assert.equal(response.status, 200, target)
      assert.equal(response.headers['cache-control'], 'no-store', target)
      assert.equal(response.headers['x-content-type-options'], 'nosniff', target)
    }
    // Not an API path: the same target outside /v1 is not marked.
    const outside = await rawExchange(
      server.baseUrl,
      'GET http://localhost/healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    )
    assert.equal(outside.status, 200)
    assert.equal(outside.headers['cache-control'], undefined)
  })

  it('answers a CORS preflight from a browser origin with 204, without authentication', async () => {
    const response = await server.request('/v1/pets', {
      method: 'OPTIONS',
      auth: false,
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    })
    assert.equal(response.status, 204)
    assert.equal(await response.text(), '')
    assert.equal(response.headers.get('access-control-allow-origin'), '*')
    assert.equal(response.headers.get('access-control-allow-methods'), 'GET, HEAD, POST, PUT, PATCH, DELETE')
    assert.equal(
      response.headers.get('access-control-allow-headers'),
      'Authorization, Content-Type, X-Request-Id, Idempotency-Key, If-Match, If-None-Match, Last-Event-ID',
    )
    assert.equal(response.headers.get('access-control-max-age'), '600')
    assert.equal(response.headers.get('www-authenticate'), null)
    assert.match(response.headers.get('x-request-id') ?? '', UUID)
    assert.equal(response.headers.get('allow'), 'GET, POST, HEAD')
  })

  it('answers OPTIONS without an origin with the methods of the path, where it exists, as its 405s do', async () => {
    const options = (path: string) => server.request(path, { method: 'OPTIONS', auth: false })
    const expected: Array<[string, string | null]> = [
      ['/v1/pets/1', 'GET, PATCH, DELETE, HEAD'],
      ['/v1/pets/1?x=1', 'GET, PATCH, DELETE, HEAD'],
      ['/v1/events', 'GET, HEAD'],
      ['/healthz', 'GET, HEAD'],
      // No path: no methods to name (CORS still answers, so that a browser's script sees the request's own 404).
      ['/v1/nothing', null],
      ['/v1/pets/', null],
    ]
    for (const [path, allow] of expected) {
      const response = await options(path)
      assert.equal(response.status, 204, path)
      assert.equal(await response.text(), '')
      assert.equal(response.headers.get('allow'), allow, path)
      if (allow === null) continue
      const refused = await server.request(path, { method: 'PUT', auth: true })
      assert.equal(refused.status, 405, path)
      await refused.arrayBuffer()
      assert.equal(refused.headers.get('allow'), allow, path)
    }
    // `OPTIONS *` asks about the server, not about a path (the router reads it as `/`).
    const serverWide = await rawExchange(
      server.baseUrl,
      'OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    )
    assert.equal(serverWide.status, 204)
    assert.equal(serverWide.headers.allow, undefined)
  })

  it('lets a browser read Link, Location and the other API headers', async () => {
    const listed = await server.request('/v1/pets', { headers: { origin: 'https://app.example.com' } })
    assert.equal(listed.status, 200)
    assert.equal(listed.headers.get('access-control-allow-origin'), '*')
    assert.equal(listed.headers.get('access-control-expose-headers'), EXPOSED)
    assert.equal((await listed.json()).length, 2)

    // Errors too: a browser must be able to read why it was refused.
    const refused = await server.request('/v1/pets', {
      auth: 'wrong-key-0123456789',
      headers: { origin: 'https://app.example.com' },
    })
    assert.equal(refused.status, 401)
    assert.equal(refused.headers.get('access-control-allow-origin'), '*')
    assert.equal(refused.headers.get('access-control-expose-headers'), EXPOSED)
    await refused.arrayBuffer()
  })

  it('never writes the API key into the logs', () => {
    assert.ok(server.logs.length > 0)
    assert.ok(!server.logs.join('').includes(TEST_API_KEY))
  })
})
