// `Expect: 100-continue`: 100 Continue is sent only once the request has passed what is decided before its body is
// read (authentication, scope, the declared size), so that a refused client never uploads its body; a request
// that passes gets 100, then its final answer once the body arrives.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { issueApiKey } from '../../../src/keys/issue-key.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

interface Exchange {
  /** The interim response's status line, if one came before the final response. */
  interim: string | undefined
  status: number
  headers: string
  body: string
}

interface Options {
  method?: string
  /** The body's declared length, when it is not the body's own. */
  length?: number
  /** false: the request asks to keep the connection open, and only the server's own decision closes it. */
  close?: boolean
  version?: '1.0' | '1.1'
  /** Send the body after this long without 100 Continue, as curl does after a second; undefined: never. */
  giveUpWaitingMs?: number
  /** More header lines, each ending in CRLF. */
  headers?: string
  /** Sent chunked (`body` being the chunks), without Content-Length. */
  chunked?: boolean
  contentType?: string
}

/**
 * Sends a request's head with `Expect: 100-continue` and holds its body back until 100 Continue arrives; a final
 * response that comes first is read to the end, the body never sent. Resolves once the server closes the
 * connection.
 */
function expectingContinue(
  server: TestServer,
  path: string,
  key: string | undefined,
  body: string,
  {
    method = 'POST',
    length = Buffer.byteLength(body),
    close = true,
    version = '1.1',
    giveUpWaitingMs,
    headers = '',
    contentType = 'application/json',
    chunked = false,
  }: Options = {},
): Promise<Exchange> {
  const { port } = new URL(server.baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1')
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')))
    let received = ''
    let interim: string | undefined
    let sent = false
    const sendBody = () => {
      if (!sent) socket.write(body)
      sent = true
    }
    const giveUp = giveUpWaitingMs === undefined ? undefined : setTimeout(sendBody, giveUpWaitingMs)
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1')
      if (interim === undefined && /^HTTP\/1\.1 100 /.test(received) && received.includes('\r\n\r\n')) {
        const end = received.indexOf('\r\n\r\n') + 4
        interim = received.slice(0, end - 4)
        received = received.slice(end)
        sendBody()
      }
    })
    socket.on('error', reject)
    socket.on('end', () => {
      clearTimeout(giveUp)
      const [head = '', text = ''] = received.split(/\r\n\r\n(.*)/s)
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1])
      resolve({ interim, status, headers: head.toLowerCase(), body: text })
    })
    socket.write(
      `${method} ${path} HTTP/${version}\r\nHost: localhost\r\n${key ? `Authorization: Bearer ${key}\r\n` : ''}` +
        `Content-Type: ${contentType}\r\n${chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n` +
        `Expect: 100-continue\r\n${headers}` +
        `${close ? 'Connection: close\r\n' : ''}\r\n`,
    )
  })
}

describe('Expect: 100-continue', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  const pet = JSON.stringify({ name: 'Patient', categoryId: 1 })

  it('a request that passes its checks gets 100 Continue, then its answer once the body is sent', async () => {
    const exchange = await expectingContinue(server, '/v1/pets', TEST_API_KEY, pet)
    assert.equal(exchange.interim, 'HTTP/1.1 100 Continue')
    assert.equal(exchange.status, 201, exchange.body)
    const created = JSON.parse(exchange.body) as { id: number }
    assert.deepEqual(created, { id: created.id, name: 'Patient', categoryId: 1, status: 'available' })
  })

  it('without a key, with a wrong one, or with one lacking the scope: the refusal alone, no 100', async () => {
    const { key: readOnly } = await issueApiKey(server.store, 'read only', { scopes: ['pets:read'] })
    const cases: Array<[string | undefined, number, string, string]> = [
      [undefined, 401, 'unauthorized', 'An API key is required: send Authorization: Bearer <key>.'],
      ['pst_wrong', 401, 'unauthorized', 'The API key is not valid.'],
      [readOnly, 403, 'forbidden', 'This API key does not have the scope pets:write, which this operation requires.'],
    ]
    for (const [key, status, code, message] of cases) {
      // Kept alive as far as the client is concerned: the server closes it, as the held-back body may still come.
      const exchange = await expectingContinue(server, '/v1/pets', key, pet, { close: false })
      assert.equal(exchange.interim, undefined, `${status} came after 100 Continue`)
      assert.equal(exchange.status, status, exchange.body)
      assert.deepEqual(JSON.parse(exchange.body), { code, message, status })
      assert.match(exchange.headers, /\r\nconnection: close$/)
    }
  })

  it('a body declared larger than the limit: 413 alone, no 100', async () => {
    const exchange = await expectingContinue(server, '/v1/pets', TEST_API_KEY, '', { length: 20_000 })
    assert.equal(exchange.interim, undefined)
    assert.equal(exchange.status, 413, exchange.body)
    assert.deepEqual(JSON.parse(exchange.body), {
      code: 'payload_too_large',
      message: 'The request body is larger than the 16 KiB limit.',
      status: 413,
    })
  })

  it('a body the route would refuse for its media type, coding or charset: 415 alone, no 100', async () => {
    const cases: Array<[Options, string]> = [
      [{ contentType: 'text/plain' }, 'The request body must be sent as Content-Type: application/json.'],
      [
        { contentType: 'application/merge-patch+json' },
        'The request body must be sent as Content-Type: application/json.',
      ],
      [
        { headers: 'Content-Encoding: gzip\r\n' },
        'Content-Encoding gzip is not supported: send the body without a content coding (identity).',
      ],
      [
        { contentType: 'application/json; charset=latin1' },
        'The request body must be UTF-8 JSON; charset=latin1 is not supported. Send Content-Type: application/json ' +
          '(charset=utf-8 may be added).',
      ],
    ]
    for (const [options, message] of cases) {
      const exchange = await expectingContinue(server, '/v1/pets', TEST_API_KEY, pet, { ...options, close: false })
      assert.equal(exchange.interim, undefined, `${exchange.status} came after 100 Continue`)
      assert.equal(exchange.status, 415, exchange.body)
      assert.deepEqual(JSON.parse(exchange.body), { code: 'unsupported_media_type', message, status: 415 })
    }
  })

  it('an empty chunked body on an operation that takes none: 100, then the answer it gets without Expect', async () => {
    // Its headers would refuse a body; an empty one is no body, which only reading it tells.
    const options = { contentType: 'application/json; charset=latin1', chunked: true }
    const exchange = await expectingContinue(
      server,
      '/v1/store/orders/987654/complete',
      TEST_API_KEY,
      '0\r\n\r\n',
      options,
    )
    assert.equal(exchange.interim, 'HTTP/1.1 100 Continue')
    assert.equal(exchange.status, 404, exchange.body)
    assert.deepEqual(JSON.parse(exchange.body), { code: 'not_found', message: 'No order has id 987654.', status: 404 })
  })

  it('a JSON type the route takes, with charset=utf-8: 100, then its answer', async () => {
    const exchange = await expectingContinue(server, '/v1/pets', TEST_API_KEY, pet, {
      contentType: 'Application/JSON; charset="UTF-8"',
    })
    assert.equal(exchange.interim, 'HTTP/1.1 100 Continue')
    assert.equal(exchange.status, 201, exchange.body)
  })

  it('a path no route takes: 100 at once, as its answer comes once the body is read', async () => {
    const exchange = await expectingContinue(server, '/v1/nothing', TEST_API_KEY, pet)
    assert.equal(exchange.interim, 'HTTP/1.1 100 Continue')
    assert.equal(exchange.status, 404, exchange.body)
  })

  it('a DELETE with a body: 100 once its checks have passed, then its answer', async () => {
    const exchange = await expectingContinue(server, '/v1/pets/987654', TEST_API_KEY, '{}', { method: 'DELETE' })
    assert.equal(exchange.interim, 'HTTP/1.1 100 Continue')
    assert.equal(exchange.status, 400, exchange.body)
  })

  it('HTTP/1.0: never a 100 (RFC 9110 section 15.2), the body read when it comes', async () => {
    const exchange = await expectingContinue(server, '/v1/pets', TEST_API_KEY, pet, {
      version: '1.0',
      giveUpWaitingMs: 300,
    })
    assert.equal(exchange.interim, undefined)
    assert.equal(exchange.status, 201, exchange.body)
  })

  it('a method the path does not take: 405 alone, no 100', async () => {
    const exchange = await expectingContinue(server, '/v1/pets/1', TEST_API_KEY, pet)
    assert.equal(exchange.interim, undefined)
    assert.equal(exchange.status, 405, exchange.body)
    assert.match(exchange.headers, /\r\nallow: get, patch, delete, head\r\n/)
  })
})
