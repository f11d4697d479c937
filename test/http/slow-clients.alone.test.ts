// Slow and abusive clients against the production time-outs (TIMEOUTS in src/http/create-fastify.ts): slow-header
// and slow-body clients and idle keep-alive connections, run by a separate Node process, must not starve a probe
// that opens a fresh connection every 150 ms; the server cuts each attacker off at its time-out with the Error body.
// Oversized heads, bodies and URLs are refused at once, also with the Error body.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { TIMEOUTS } from '../../src/http/create-fastify.js'
import { assertRawError, CORS } from '../helpers/error-assert.js'
import { openRawConnection, rawExchange } from '../helpers/raw-http.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'
import type { LoadOptions, LoadReport } from '../helpers/slow-client-load.js'

const LOAD_SCRIPT = fileURLToPath(new URL('../helpers/slow-client-load.ts', import.meta.url))
// Node enforces the header and request time-outs when it sweeps its connections; a sweep may land just before
// the deadline, so a client can live one interval longer. The rest is scheduling slack on a busy machine.
const CUT_OFF_SLACK_MS = TIMEOUTS.connectionsCheckIntervalMs + 2500
const P99_REQUIREMENT_MS = 500

function runLoad(options: LoadOptions): Promise<LoadReport> {
  const child = spawn(process.execPath, ['--import', 'tsx', LOAD_SCRIPT, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  let errors = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()))
  return new Promise((resolve, reject) =>
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`the load script exited with ${code}: ${errors}`))
      else resolve(JSON.parse(output) as LoadReport)
    }),
  )
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN
}

/** The headers of a response as the load script recorded it (its whole text), names in lower case. */
function headersOf(response: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of response.slice(0, response.indexOf('\r\n\r\n')).split('\r\n').slice(1)) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  return headers
}

const summary = (latencies: number[]) =>
  `${latencies.length} requests, p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ` +
  `${percentile(latencies, 0.99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`

describe('slow clients against the production time-outs', () => {
  let server: TestServer
  let report: LoadReport
  before(async () => {
    server = await startTestServer({ env: { LOG_LEVEL: 'warn' } })
    report = await runLoad({
      port: Number(new URL(server.baseUrl).port),
      apiKey: TEST_API_KEY,
      baselineMs: 4000,
      // Long enough for the slow-body clients to meet the 30 s request time-out.
      attackMs: TIMEOUTS.requestMs + CUT_OFF_SLACK_MS + 1000,
      probeIntervalMs: 150,
      slowHeaders: 200,
      slowBodies: 20,
      idleKeepAlive: 50,
    })
  })
  after(() => server.close())

  it('answers every probe request, with and without the attack, and reports its latency', (t) => {
    assert.deepEqual(report.baseline.failures, [])
    assert.deepEqual(report.attack.failures, [])
    t.diagnostic(`without attack: ${summary(report.baseline.latenciesMs)}`)
    t.diagnostic(
      'under attack (200 slow-header, 20 slow-body, 50 idle keep-alive connections): ' +
        `${summary(report.attack.latenciesMs)}`,
    )
    assert.ok(report.attack.latenciesMs.length >= 150, 'the probe ran for the whole attack')
    const p99 = percentile(report.attack.latenciesMs, 0.99)
    assert.ok(
      p99 < P99_REQUIREMENT_MS,
      `p99 under attack is ${p99.toFixed(1)} ms, the requirement is < ${P99_REQUIREMENT_MS} ms`,
    )
  })

  it('cuts every slow-header client off at the headers time-out (10 s) with 408 and the Error body', (t) => {
    const { connections, cutOff, failed } = report.slowHeaders
    t.diagnostic(
      `slow-header: ${connections} connections, ${cutOff.length} cut off, longest ` +
        `${Math.max(...cutOff.map((c) => c.lifetimeMs)).toFixed(0)} ms`,
    )
    assert.deepEqual(failed, [], 'no slow-header connection failed')
    assert.ok(cutOff.length >= 200, 'every first-generation slow-header client was cut off during the attack')
    for (const { lifetimeMs, response } of cutOff) {
      assert.ok(
        lifetimeMs >= TIMEOUTS.headersMs - 100 && lifetimeMs <= TIMEOUTS.headersMs + CUT_OFF_SLACK_MS,
        `lived ${lifetimeMs} ms, answered ${JSON.stringify(response)}`,
      )
      assert.match(
        response,
        new RegExp(
          /^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*\r\n\r\n/.source +
            /\{"code":"request_timeout","message":"The request was not received in time.","status":408\}$/.source,
        ),
      )
      const headers = headersOf(response)
      for (const [name, value] of Object.entries(CORS)) assert.equal(headers[name], value, `header ${name}`)
    }
  })

  it('cuts every slow-body client off at the request time-out (30 s) with 408 and the Error body', (t) => {
    const { connections, cutOff, failed } = report.slowBodies
    t.diagnostic(
      `slow-body: ${connections} connections, ${cutOff.length} cut off, longest ` +
        `${Math.max(...cutOff.map((c) => c.lifetimeMs)).toFixed(0)} ms`,
    )
    assert.deepEqual(failed, [], 'no slow-body connection failed')
    assert.ok(cutOff.length >= 20, 'every slow-body client was cut off during the attack')
    for (const { lifetimeMs, response } of cutOff) {
      assert.ok(
        lifetimeMs >= TIMEOUTS.requestMs - 100 && lifetimeMs <= TIMEOUTS.requestMs + CUT_OFF_SLACK_MS,
        `lived ${lifetimeMs} ms, answered ${JSON.stringify(response)}`,
      )
      assert.match(
        response,
        new RegExp(
          /^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*\r\n\r\n/.source +
            /\{"code":"request_timeout","message":"The request was not received in time.","status":408\}$/.source,
        ),
      )
      const headers = headersOf(response)
      for (const [name, value] of Object.entries(CORS)) assert.equal(headers[name], value, `header ${name}`)
    }
  })

  it('keeps idle keep-alive connections until the keep-alive time-out (72 s), without letting them block \
anyone', () => {
    assert.equal(report.idleKeepAlive.cutOff.length, 0)
    assert.equal(report.idleKeepAlive.stillOpen, 50)
  })
})

describe('oversized requests are refused at once, with the Error body', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { LOG_LEVEL: 'warn' } })
  })
  after(() => server.close())

  const quickly = async <T>(send: () => Promise<T>): Promise<T> => {
    const started = performance.now()
    const result = await send()
    assert.ok(performance.now() - started < 2000, `answered in ${(performance.now() - started).toFixed(0)} ms`)
    return result
  }
  const tooLarge = {
    status: 431,
    code: 'request_header_fields_too_large',
    message: 'The request line and headers are larger than the 16 KiB limit.',
  }

  it('answers a 20 KiB URL with 431 (the request line counts against the 16 KiB head limit)', async () => {
    const response = await quickly(() =>
      rawExchange(
        server.baseUrl,
        `GET /v1/pets?cursor=${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ` +
          `${TEST_API_KEY}\r\n\r\n`,
      ),
    )
    assertRawError(response, tooLarge, { connection: 'close', 'cache-control': 'no-store', ...CORS })
  })

  it('answers many small headers adding up to more than 16 KiB with 431', async () => {
    const headers = Array.from({ length: 1200 }, (_, index) => `X-Header-${index}: ${index}\r\n`).join('')
    const response = await quickly(() =>
      rawExchange(server.baseUrl, `GET /v1/pets HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`),
    )
    assertRawError(response, tooLarge, { connection: 'close', 'cache-control': 'no-store', ...CORS })
  })

  it('answers a declared body over 16 KiB with 413 before the client sends it', async () => {
    const connection = await openRawConnection(server.baseUrl)
    await connection.write(
      `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nContent-Type: ` +
        `application/json\r\nContent-Length: 1000000\r\n\r\n`,
    )
    const response = await quickly(() => connection.nextResponse())
    assertRawError(
      response,
      { status: 413, code: 'payload_too_large', message: 'The request body is larger than the 16 KiB limit.' },
      { 'cache-control': 'no-store' },
    )
    connection.socket.destroy()
  })

  it('answers a chunked body that grows past 16 KiB with 413 without reading the rest', async () => {
    const connection = await openRawConnection(server.baseUrl)
    await connection.write(
      `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nContent-Type: ` +
        `application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    )
    const chunk = 'a'.repeat(4096)
    for (let sent = 0; sent <= 20 * 1024; sent += chunk.length)
      await connection.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)
    const response = await quickly(() => connection.nextResponse())
    assertRawError(
      response,
      { status: 413, code: 'payload_too_large', message: 'The request body is larger than the 16 KiB limit.' },
      { 'cache-control': 'no-store' },
    )
    connection.socket.destroy()
  })
})
