// Keys sent in a URL (a query parameter, a path segment) never reach the logs: every logged URL goes through
// one redaction (src/http/request/log-url.ts), in the access log line, the debug "incoming request" line, and the
// messages of refused requests that quote the path; so do keys a client puts in a header the log quotes (Host,
// Idempotency-Key).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { redactUrl } from '../../../src/http/request/log-url.js'
import { rawExchange } from '../../helpers/raw-http.js'
import { logEntries, startTestServer, type TestServer } from '../../helpers/server.js'

const KEY = 'pst_Zm9vYmFyYmF6cXV4MDEyMzQ1Njc4OWFiY2RlZmdoaWo'

type Entry = Record<string, unknown>

describe('URLs in the logs', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { LOG_LEVEL: 'debug' } })
  })
  after(() => server.close())

  function entriesFor(requestId: string): Entry[] {
    return logEntries<Entry>(server).filter((entry) => entry.reqId === requestId)
  }

  /** `refusal`: what the access line of a refused request adds, the answer's code and message. */
  async function logged(path: string): Promise<{ status: number; entries: Entry[]; refusal: Entry }> {
    const response = await server.request(path)
    const text = await response.text()
    const requestId = response.headers.get('x-request-id') ?? ''
    const body = response.status >= 400 ? (JSON.parse(text) as { code: string; message: string }) : undefined
    const refusal = body ? { code: body.code, errorMessage: body.message } : {}
    return { status: response.status, entries: entriesFor(requestId), refusal }
  }

  const cases: [string, string][] = [
    [`/v1/pets?access_token=${KEY}&limit=1`, '/v1/pets?access_token=[redacted]&limit=1'],
    ['/v1/pets?limit=1&api_key=hunter2&status=available', '/v1/pets?limit=1&api_key=[redacted]&status=available'],
    [
      '/v1/pets?Authorization=Bearer%20x&X-Api-Key=k&apiKey=k&client_secret=s&password=p&X-Amz-Signature=s&token',
      '/v1/pets?Authorization=[redacted]&X-Api-Key=[redacted]&apiKey=[redacted]&client_secret=[redacted]' +
        '&password=[redacted]&X-Amz-Signature=[redacted]&token',
    ],
    [`/v1/pets?note=${KEY}`, '/v1/pets?note=[redacted]'],
    [`/v1/pets/${KEY}`, '/v1/pets/[redacted]'],
    [`/v1/pets/pst%5F${KEY.slice(4)}?q=1`, '/v1/pets/[redacted]?q=1'],
    // Any character of the prefix may be percent-encoded: the URL still carries the key.
    [`/v1/pets/%70st_${KEY.slice(4)}?q=1`, '/v1/pets/[redacted]?q=1'],
    [`/v1/pets?note=p%73t_${KEY.slice(4)}`, '/v1/pets?note=[redacted]'],
    [`/v1/pets?note=%70%73%74%5f${KEY.slice(4)}&limit=1`, '/v1/pets?note=[redacted]&limit=1'],
    // Encoded twice or more: one decoding of the logged URL gives an encoded key, a second the key.
    [`/v1/pets/%2570st_${KEY.slice(4)}`, '/v1/pets/[redacted]'],
    [`/v1/pets?note=p%25252573t%255F${KEY.slice(4)}`, '/v1/pets?note=[redacted]'],
  ]

  for (const [path, expected] of cases) {
    it(`logs ${path} as ${expected}`, async () => {
      const { status, entries, refusal } = await logged(path)
      const text = JSON.stringify(entries)
      assert.ok(!text.includes(KEY.slice(4)), `the key is in the log: ${text}`)
      assert.ok(!text.includes('hunter2'), `a secret is in the log: ${text}`)
      const completed = entries.find((entry) => entry.msg === 'request completed')
      assert.ok(completed, `no access log line: ${text}`)
      // Values that differ from run to run (the key's label is another test's subject) are checked by type.
      const { time, pid, hostname, responseTime, reqId, keyId, ...rest } = completed
      assert.equal(typeof keyId, 'string')
      assert.equal(typeof time, 'number')
      assert.equal(typeof pid, 'number')
      assert.equal(typeof hostname, 'string')
      assert.equal(typeof responseTime, 'number')
      assert.equal(typeof reqId, 'string')
      assert.deepEqual(rest, {
        level: 30,
        method: 'GET',
        url: expected,
        statusCode: status,
        remoteAddress: '127.0.0.1',
        ...refusal,
        msg: 'request completed',
      })
      const incoming = entries.find((entry) => entry.msg === 'incoming request')
      assert.deepEqual((incoming?.req as Entry | undefined)?.url, expected)
    })
  }

  it('redacts a key quoted by the message of a refused request', async () => {
    const { status, entries } = await logged(`/v1/no-such/${KEY}`)
    assert.equal(status, 404)
    assert.deepEqual(
      entries.filter((entry) => entry.code === 'not_found').map((entry) => [entry.msg, entry.errorMessage]),
      [['request completed', 'No route GET /v1/no-such/[redacted].']],
    )
  })

  it('redacts a key quoted by the message of a refused request, its prefix percent-encoded', async () => {
    const { status, entries } = await logged(`/v1/no-such/ps%74_${KEY.slice(4)}`)
    assert.equal(status, 404)
    assert.ok(!JSON.stringify(entries).includes(KEY.slice(4)), `the key is in the log: ${JSON.stringify(entries)}`)
    assert.deepEqual(
      entries.filter((entry) => entry.code === 'not_found').map((entry) => [entry.msg, entry.errorMessage]),
      [['request completed', 'No route GET /v1/no-such/[redacted].']],
    )
  })

  it('gives a request whose path is not valid percent-encoding its one access line, key redacted', async () => {
    const cases: [path: string, status: number, message: string, auth: boolean][] = [
      [`/v1/pets/${KEY}%ZZ`, 401, 'An API key is required: send Authorization: Bearer <key>.', false],
      ['/v1/pets/%E0%A4%A', 400, 'The request path is not validly percent-encoded.', true],
      [`/no-such/${KEY}%ZZ`, 400, 'The request path is not validly percent-encoded.', false],
    ]
    for (const [path, status, message, auth] of cases) {
      const response = await server.request(path, { auth })
      const requestId = response.headers.get('x-request-id') ?? ''
      assert.equal(response.status, status)
      assert.equal(((await response.json()) as { message: string }).message, message)
      const entries = entriesFor(requestId)
      assert.ok(!JSON.stringify(entries).includes(KEY.slice(4)), `the key is in the log: ${JSON.stringify(entries)}`)
      const completed = entries.filter((entry) => entry.msg === 'request completed')
      assert.equal(completed.length, 1, `${path}: ${JSON.stringify(entries)}`)
      const { time, pid, hostname, responseTime, reqId, keyId, code, ...rest } = completed[0] ?? {}
      assert.equal(typeof time, 'number')
      assert.equal(typeof pid, 'number')
      assert.equal(typeof hostname, 'string')
      assert.ok(typeof responseTime === 'number' && responseTime > 0, `responseTime ${String(responseTime)}`)
      assert.equal(reqId, requestId)
      assert.equal(typeof keyId, auth ? 'string' : 'undefined')
      assert.equal(code, status === 401 ? 'unauthorized' : 'invalid_request')
      assert.deepEqual(rest, {
        level: 30,
        method: 'GET',
        url: redactUrl(path),
        statusCode: status,
        remoteAddress: '127.0.0.1',
        errorMessage: message,
        msg: 'request completed',
      })
    }
  })

  it('redacts a key sent as the Host header in the incoming request line', async () => {
    const requestId = 'host-key-redaction'
    const response = await rawExchange(
      server.baseUrl,
      `GET /v1/pets HTTP/1.1\r\nHost: ${KEY}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n`,
    )
    assert.equal(response.status, 401)
    const entries = entriesFor(requestId)
    assert.ok(!JSON.stringify(entries).includes(KEY.slice(4)), `the key is in the log: ${JSON.stringify(entries)}`)
    const incoming = entries.find((entry) => entry.msg === 'incoming request')
    assert.deepEqual((incoming?.req as Entry | undefined)?.host, '[redacted]')
  })

  it('redacts the user information of an absolute-form target', async () => {
    const requestId = 'userinfo-redaction'
    const response = await rawExchange(
      server.baseUrl,
      `GET http://admin:hunter2@localhost/healthz HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n',
    )
    assert.equal(response.status, 200)
    const entries = entriesFor(requestId)
    assert.ok(!JSON.stringify(entries).includes('hunter2'), `a password is in the log: ${JSON.stringify(entries)}`)
    assert.deepEqual(
      entries.map((entry) => [entry.msg, (entry.req as Entry | undefined)?.url ?? entry.url]),
      [
        ['incoming request', 'http://[redacted]@localhost/healthz'],
        ['request completed', 'http://[redacted]@localhost/healthz'],
      ],
    )
  })

  it('redacts a key sent as an Idempotency-Key in the line of its replay', async () => {
    const create = () =>
      server.request('/v1/pets', { json: { name: 'Keyed', categoryId: 1 }, headers: { 'idempotency-key': KEY } })
    assert.equal((await create()).status, 201)
    const replay = await create()
    assert.equal(replay.status, 201)
    assert.equal(replay.headers.get('idempotent-replayed'), 'true')
    const entries = entriesFor(replay.headers.get('x-request-id') ?? '')
    assert.ok(!JSON.stringify(entries).includes(KEY.slice(4)), `the key is in the log: ${JSON.stringify(entries)}`)
    assert.deepEqual(
      entries
        .filter((entry) => entry.msg === 'replayed the stored response of an idempotent request')
        .map(({ idempotencyKey, status }) => ({ idempotencyKey, status })),
      [{ idempotencyKey: '[redacted]', status: 201 }],
    )
  })

  it('leaves ordinary URLs as they are', () => {
    assert.equal(
      redactUrl('/v1/pets?limit=2&status=sold&cursor=abc.def'),
      '/v1/pets?limit=2&status=sold&cursor=abc.def',
    )
    assert.equal(redactUrl('/v1/store/orders/7/complete'), '/v1/store/orders/7/complete')
    assert.equal(redactUrl('http://localhost/v1/pets?next=a@b'), 'http://localhost/v1/pets?next=a@b')
  })
})
