// What an operator relies on: liveness, readiness (and its failure), Prometheus metrics, explicit time-outs.
import { staticKeyId } from '../../src/keys/static-key-id.js'
import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Kysely } from 'kysely'
import type { Database } from '../../src/db/database.js'
import { TIMEOUTS } from '../../src/http/create-fastify.js'
import { assertError, assertRawError, CORS, JSON_CONTENT_TYPE } from '../helpers/error-assert.js'
import { openRawConnection } from '../helpers/raw-http.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

const SECOND_KEY = 'second-static-key-0123456789'
/** Static keys are labelled by their place in PETSTORE_API_KEYS. */

/** The value of one sample of the exposition, or undefined when the series does not exist. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('operations endpoints', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { PETSTORE_API_KEYS: `${TEST_API_KEY},${SECOND_KEY}` } })
  })
  after(() => server.close())

  async function metricsText(): Promise<string> {
    const response = await server.request('/metrics', { auth: false })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8')
    return response.text()
  }

  /**
   * Counters move in the onResponse hook, which Node runs once the response has been handed to the socket;
   * the next scrape is retried a few times so that a busy machine cannot make the count look stale.
   */
  async function sampleReaching(series: string, expected: number): Promise<number | undefined> {
    let value: number | undefined
    for (let attempt = 0; attempt < 50; attempt++) {
      value = sample(await metricsText(), series)
      if (value !== undefined && value >= expected) return value
      await sleep(20)
    }
    return value
  }

  it('answers /healthz and /readyz without authentication', async () => {
    for (const [path, body] of [
      ['/healthz', { status: 'ok' }],
      ['/readyz', { status: 'ready' }],
    ] as const) {
      const response = await server.request(path, { auth: false })
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('content-type'), JSON_CONTENT_TYPE)
      assert.deepEqual(await response.json(), body)
    }
  })

  it('counts requests by method, route template and status, with duration buckets', async () => {
    const series = 'http_requests_total{method="GET",route="/v1/pets",status_code="200"}'
    assert.equal(sample(await metricsText(), series), undefined)
    for (let call = 0; call < 3; call++) {
      const response = await server.request('/v1/pets')
      assert.equal(response.status, 200)
      await response.arrayBuffer()
    }
    assert.equal(await sampleReaching(series, 3), 3)
    const text = await metricsText()
    assert.match(text, /^# TYPE http_requests_total counter$/m)
    assert.match(text, /^# TYPE http_request_duration_seconds histogram$/m)
    const labels = 'method="GET",route="/v1/pets",status_code="200"'
    assert.equal(sample(text, `http_request_duration_seconds_bucket{le="+Inf",${labels}}`), 3)
    assert.equal(sample(text, `http_request_duration_seconds_count{${labels}}`), 3)
    const buckets = text
      .split('\n')
      .filter((line) => line.startsWith('http_request_duration_seconds_bucket{') && line.includes(labels))
    assert.equal(buckets.length, 12)

    const created = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
    assert.equal(created.status, 201)
    await created.arrayBuffer()
    assert.equal(await sampleReaching('http_requests_total{method="POST",route="/v1/pets",status_code="201"}', 1), 1)
    assert.equal(sample(await metricsText(), series), 3)
  })

  it('labels unknown routes "unmatched", never with the raw URL', async () => {
    for (const path of ['/no/such/path-4711', '/another-unknown-4712']) {
      const response = await server.request(path, { auth: false })
      assert.equal(response.status, 404)
      await response.arrayBuffer()
    }
    assert.equal(await sampleReaching('http_requests_total{method="GET",route="unmatched",status_code="404"}', 2), 2)
    const text = await metricsText()
    // Label values only: digits alone could also appear in a process metric's value.
    assert.ok(!text.includes('path-4711') && !text.includes('unknown-4712'), 'no raw URL in any label')
  })

  it('counts requests answered before any route as "unmatched": bad percent-encoding, parser refusals, \
CONNECT', async () => {
    const badPath = await server.request('/v1/pets/%zz')
    assert.equal(badPath.status, 400)
    await badPath.arrayBuffer()
    const badPathNoKey = await server.request('/v1/pets/%zz', { auth: false })
    assert.equal(badPathNoKey.status, 401)
    await badPathNoKey.arrayBuffer()
    for (const head of [
      'GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n',
    ]) {
      const connection = await openRawConnection(server.baseUrl)
      await connection.write(head)
      assert.equal((await connection.nextResponse()).status, 400)
      await connection.closed
    }
    assert.equal(await sampleReaching('http_requests_total{method="GET",route="unmatched",status_code="400"}', 1), 1)
    assert.equal(await sampleReaching('http_requests_total{method="GET",route="unmatched",status_code="401"}', 1), 1)
    assert.equal(
      await sampleReaching('http_requests_total{method="unparsed",route="unmatched",status_code="400"}', 1),
      1,
    )
    const text = await metricsText()
    assert.equal(sample(text, 'http_requests_total{method="CONNECT",route="unmatched",status_code="400"}'), 1)
    assert.equal(
      sample(text, 'http_request_duration_seconds_count{method="unparsed",route="unmatched",status_code="400"}'),
      1,
    )
  })

  it('counts authenticated getPet calls per key, found or not', async () => {
    const created = await server.request('/v1/pets', { json: { name: 'Bello', categoryId: 2 } })
    const { id } = await created.json()
    const calls: [string, string, number][] = [
      [TEST_API_KEY, `/v1/pets/${id}`, 200],
      [TEST_API_KEY, '/v1/pets/987654', 404],
      [TEST_API_KEY, `/v1/pets/${id}`, 200],
      [SECOND_KEY, '/v1/pets/987654', 404],
      ['not-a-valid-key-000000', `/v1/pets/${id}`, 401],
    ]
    for (const [key, path, status] of calls) {
      const response = await server.request(path, { auth: key })
      assert.equal(response.status, status)
      await response.arrayBuffer()
    }
    const first = `petstore_deprecated_operation_calls_total{operation="getPet",key_id="${staticKeyId(TEST_API_KEY)}"}`
    const second = `petstore_deprecated_operation_calls_total{operation="getPet",key_id="${staticKeyId(SECOND_KEY)}"}`
    const text = await metricsText()
    assert.equal(sample(text, first), 3)
    assert.equal(sample(text, second), 1)
    // A call refused for its key is not attributed to anyone.
    const getPetLines = text.split('\n').filter((line) => line.startsWith('petstore_deprecated_operation_calls_total{'))
    assert.deepEqual(getPetLines.sort(), [`${first} 3`, `${second} 1`].sort())
  })
})

describe('readiness when the database is unreachable', () => {
  it('answers 503 unavailable, also when the database hangs, and closes cleanly afterwards', async () => {
    const server = await startTestServer()
    try {
      const ping = server.store.ping
      // A database that never answers: the check gives up after its own time limit instead of hanging.
      server.store.ping = () => new Promise<void>(() => undefined)
      const hanging = await server.request('/readyz', { auth: false })
      const hangingId = await assertError(hanging, {
        status: 503,
        code: 'unavailable',
        message: 'The database cannot be reached.',
      })
      server.store.ping = ping

      // Every connection closed, the readers' too (readiness asks for a read): a database gone.
      await server.store.admin.destroy()
      await (server.store.read as Kysely<Database>).destroy()
      const gone = await server.request('/readyz', { auth: false })
      const goneId = await assertError(gone, {
        status: 503,
        code: 'unavailable',
        message: 'The database cannot be reached.',
      })
      const warnings = server.logs
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry.msg === 'readiness check failed')
      assert.deepEqual(
        warnings.map((entry) => [entry.reqId, entry.level]),
        [
          [hangingId, 40],
          [goneId, 40],
        ],
      )

      const alive = await server.request('/healthz', { auth: false })
      assert.equal(alive.status, 200)
      await alive.arrayBuffer()
    } finally {
      // The app's onClose closes the database a second time: that must be harmless.
      await server.close()
    }
  })
})

describe('server time-outs', () => {
  it('are set explicitly to the exported values', async () => {
    const server = await startTestServer()
    try {
      const http = server.app.server as Server & { connectionsCheckingInterval?: number }
      assert.equal(http.requestTimeout, TIMEOUTS.requestMs)
      assert.equal(http.headersTimeout, TIMEOUTS.headersMs)
      assert.equal(http.keepAliveTimeout, TIMEOUTS.keepAliveMs)
      assert.equal(http.timeout, TIMEOUTS.connectionIdleMs)
      assert.equal(http.connectionsCheckingInterval, TIMEOUTS.connectionsCheckIntervalMs)
      for (const value of Object.values(TIMEOUTS)) assert.ok(value > 0)
      assert.ok(TIMEOUTS.headersMs <= TIMEOUTS.requestMs, 'Node requires headersTimeout <= requestTimeout')
    } finally {
      await server.close()
    }
  })

  it('answers a client that never finishes its headers with 408 and closes the connection', async () => {
    // The production value is 10 s; this instance lowers it so the test stays short. What is under test is
    // that Node's sweep enforces it and that the answer is the Error body.
    const server = await startTestServer({
      beforeListen: (app) => {
        app.server.headersTimeout = 1000
      },
    })
    try {
      const connection = await openRawConnection(server.baseUrl)
      await connection.write('GET /v1/pets HTTP/1.1\r\nHost: localhost\r\nX-Slow: ')
      const response = await connection.nextResponse()
      assertRawError(
        response,
        { status: 408, code: 'request_timeout', message: 'The request was not received in time.' },
        { connection: 'close', ...CORS },
      )
      await connection.closed
    } finally {
      await server.close()
    }
  })
})
