// A client that hangs up in the middle of its request body is not a failure of the service: no error-level
// log line (no stack trace to page anyone with), and not the 503 "database unavailable" outcome that Node's
// ECONNRESET used to be taken for. Real database resets still are.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { isDatabaseUnavailable } from '../../../src/db/unavailable.js'
import { openRawConnection } from '../../helpers/raw-http.js'
import { logEntries, startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

type Entry = Record<string, unknown>

describe('a client that aborts mid-body', () => {
  let server: TestServer
  // Resolved when the server starts reading a request's body, by request id: hanging up earlier would test
  // another case (a request whose head alone arrived).
  const readingBody = new Map<string, () => void>()
  before(async () => {
    server = await startTestServer({
      beforeListen: (app) => {
        app.addHook('preParsing', (request, _reply, _payload, done) => {
          readingBody.get(String(request.headers['x-request-id']))?.()
          done()
        })
      },
    })
  })
  after(() => server.close())

  const entries = (): Entry[] => logEntries<Entry>(server)

  async function abortMidBody(requestId: string): Promise<Entry[]> {
    const received = new Promise<void>((resolve) => readingBody.set(requestId, resolve))
    const connection = await openRawConnection(server.baseUrl)
    await connection.write(
      `POST /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nX-Request-Id: ${requestId}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"half',
    )
    await received
    // A reset, which no answer can follow. (A plain close ends the body short of its length instead, which the
    // service answers 400 and logs as answered: the next test.)
    connection.socket.resetAndDestroy()
    // The server logs how the request ended; the test runner's time-out bounds this wait. Then a while longer, so
    // that a second line for the request (the refusal's own, as earlier versions wrote) would be seen.
    while (!entries().some((entry) => entry.reqId === requestId))
      await new Promise((resolve) => setTimeout(resolve, 10))
    await new Promise((resolve) => setTimeout(resolve, 200))
    return entries().filter((entry) => entry.reqId === requestId)
  }

  it("is logged at info level as the client's doing, in one line, not as an error or an outage", async () => {
    const logged = await abortMidBody('abort-1')
    assert.deepEqual(
      logged.map(({ level, code, statusCode, clientClosed, msg }) => ({ level, code, statusCode, clientClosed, msg })),
      [{ level: 30, code: undefined, statusCode: undefined, clientClosed: true, msg: 'request aborted by the client' }],
    )
    const metrics = await (await server.request('/metrics', { auth: false })).text()
    assert.deepEqual(
      metrics
        .split('\n')
        .filter((line) => line.startsWith('http_requests_total{') && line.includes('status_code="503"')),
      [],
    )
    assert.ok(!entries().some((entry) => (entry.level as number) >= 50), 'an error-level line was written')
    assert.ok(!JSON.stringify(entries()).includes('unavailable'), 'the abort was taken for an outage')
  })

  it('a body cut off by the end of the sending side is answered 400, counted and logged once, not as 499', async () => {
    const counted = async () =>
      (await (await server.request('/metrics', { auth: false })).text())
        .split('\n')
        .filter((line) => line.startsWith('http_requests_total{') && !line.includes('route="/metrics"'))
        .map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))] as const)
    const before = new Map(await counted())
    const received = new Promise<void>((resolve) => readingBody.set('cut-off-1', resolve))
    const connection = await openRawConnection(server.baseUrl)
    await connection.write(
      `POST /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nX-Request-Id: cut-off-1\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"half',
    )
    await received
    // The body ends short of its length: the parser refuses the request, and the service answers it.
    connection.socket.end()
    const response = await connection.nextResponse()
    assert.deepEqual([response.status, response.headers['x-request-id']], [400, 'cut-off-1'])
    await connection.closed
    // A while longer, so that a second count for the request would be seen.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const grown = (await counted())
      .map(([series, count]) => [series, count - (before.get(series) ?? 0)] as const)
      .filter(([, more]) => more > 0)
    assert.deepEqual(grown, [['http_requests_total{method="unparsed",route="unmatched",status_code="400"}', 1]])
    assert.deepEqual(
      entries()
        .filter((entry) => entry.reqId === 'cut-off-1')
        .map(({ msg, method, url, statusCode, code, clientClosed }) => ({
          msg,
          method,
          url,
          statusCode,
          code,
          clientClosed,
        })),
      [
        {
          msg: 'request completed',
          method: 'POST',
          url: '/v1/pets',
          statusCode: 400,
          code: 'invalid_request',
          clientClosed: undefined,
        },
      ],
    )
  })

  it("tells Node's request abort from a database connection reset", () => {
    const clientAbort = Object.assign(new Error('aborted'), { code: 'ECONNRESET' })
    assert.equal(isDatabaseUnavailable(clientAbort), false)
    const databaseReset = Object.assign(new Error('read ECONNRESET'), {
      code: 'ECONNRESET',
      errno: -104,
      syscall: 'read',
    })
    assert.equal(isDatabaseUnavailable(databaseReset), true)
    assert.equal(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')), true)
  })
})
