// One error shape everywhere: routing, body parsing, HTTP parsing and unexpected failures all answer with
// {code, message, status} as application/json, status equal to the HTTP status, and an X-Request-Id.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError, assertRawError, CORS, JSON_CONTENT_TYPE, UUID } from '../../helpers/error-assert.js'
import { exchangeRaw } from '../../helpers/fuzz-raw.js'
import { rawExchange } from '../../helpers/raw-http.js'
import { logEntries, startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

const SECRET = 'secret internal detail /etc/passwd'

describe('error responses', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({
      beforeListen: (app) => {
        app.get('/test/internal-error', async () => {
          throw new Error(SECRET)
        })
      },
    })
  })
  after(() => server.close())

  const postJson = (body: string, contentType = 'application/json') =>
    server.request('/v1/pets', { method: 'POST', headers: { 'content-type': contentType }, body })

  it('answers an unknown route outside /v1 with 404 not_found, without authentication', async () => {
    const requestId = await assertError(await server.request('/no/such/route?x=1', { auth: false }), {
      status: 404,
      code: 'not_found',
      message: 'No route GET /no/such/route.',
    })
    assert.match(requestId, UUID)
  })

  it('asks for a key before saying that a route under /v1 does not exist', async () => {
    await assertError(
      await server.request('/v1/no-such-route', { auth: false }),
      { status: 401, code: 'unauthorized', message: 'An API key is required: send Authorization: Bearer <key>.' },
      { 'www-authenticate': 'Bearer realm="petstore"' },
    )
    await assertError(
      await server.request('/v1/no-such-route'),
      { status: 404, code: 'not_found', message: 'No route GET /v1/no-such-route.' },
      { 'cache-control': 'no-store' },
    )
  })

  it('answers a wrong method on /v1/pets and /v1/pets/{petId} with 405 and an Allow header', async () => {
    for (const method of ['DELETE', 'PUT', 'PATCH']) {
      await assertError(
        await server.request('/v1/pets', { method }),
        {
          status: 405,
          code: 'method_not_allowed',
          message: `${method} is not allowed on this resource; allowed: GET, POST, HEAD.`,
        },
        { allow: 'GET, POST, HEAD' },
      )
    }
    for (const method of ['POST', 'PUT']) {
      await assertError(
        await server.request('/v1/pets/1', { method }),
        {
          status: 405,
          code: 'method_not_allowed',
          message: `${method} is not allowed on this resource; allowed: GET, PATCH, DELETE, HEAD.`,
        },
        { allow: 'GET, PATCH, DELETE, HEAD' },
      )
    }
  })

  it('refuses malformed JSON, an empty JSON body and prototype-poisoning keys with 400', async () => {
    for (const body of ['{"name":', '{name: "Rex"}', '{"name":"Rex","categoryId":1}x']) {
      await assertError(await postJson(body), {
        status: 400,
        code: 'invalid_request',
        message: 'The request body is not valid JSON.',
      })
    }
    await assertError(await postJson(''), {
      status: 400,
      code: 'invalid_request',
      message: 'The request body is empty; a JSON object is required.',
    })
    for (const body of [
      '{"__proto__": {"isAdmin": true}, "name": "Rex", "categoryId": 1}',
      '{"constructor":{"prototype":{}},"name":"Rex","categoryId":1}',
    ]) {
      await assertError(await postJson(body), {
        status: 400,
        code: 'invalid_request',
        message: 'The request body contains a forbidden property name (__proto__, or constructor with prototype).',
      })
    }
  })

  it('refuses a body over 16 KiB with 413 and a non-JSON media type with 415', async () => {
    const large = JSON.stringify({ name: 'R'.repeat(16 * 1024), categoryId: 1 })
    await assertError(await postJson(large), {
      status: 413,
      code: 'payload_too_large',
      message: 'The request body is larger than the 16 KiB limit.',
    })
    await assertError(await postJson('{"name":"Rex","categoryId":1}', 'text/plain'), {
      status: 415,
      code: 'unsupported_media_type',
      message: 'The request body must be sent as Content-Type: application/json.',
    })
    await assertError(await postJson('name=Rex&categoryId=1', 'application/x-www-form-urlencoded'), {
      status: 415,
      code: 'unsupported_media_type',
      message: 'The request body must be sent as Content-Type: application/json.',
    })
  })

  it('adds details for schema violations', async () => {
    await assertError(await server.request('/v1/pets', { json: { name: 'Rex' } }), {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: body/categoryId is required',
      details: [{ path: 'body/categoryId', message: 'is required' }],
    })
  })

  it('refuses numbers JSON would round, and stores nothing', async () => {
    for (const literal of ['9007199254740993', '1.0000000000000001']) {
      await assertError(await postJson(`{"name":"Rex","categoryId":${literal}}`), {
        status: 400,
        code: 'invalid_request',
        message:
          `The number ${literal} cannot be read exactly: integers are written without fraction or exponent and lie ` +
          'between -9007199254740991 and 9007199254740991.',
        details: [{ path: 'body/categoryId', message: 'is a number that cannot be read exactly' }],
      })
    }
    // Every request of this suite failed, so the store must still be empty.
    const list = await server.request('/v1/pets')
    assert.equal(list.status, 200)
    assert.deepEqual(await list.json(), [])
  })

  it('answers a path that is not valid percent-encoding, or an over-long path segment, in the same shape', async () => {
    await assertError(
      await server.request('/v1/pets/%zz'),
      { status: 400, code: 'invalid_request', message: 'The request path is not validly percent-encoded.' },
      { 'cache-control': 'no-store', ...CORS },
    )
    await assertError(await server.request('/%E0%A4%A', { auth: false }), {
      status: 400,
      code: 'invalid_request',
      message: 'The request path is not validly percent-encoded.',
    })
    // Longer than the router's default parameter limit (100): authentication and validation still apply.
    const longId = '1'.repeat(300)
    await assertError(await server.request(`/v1/pets/${longId}`, { auth: false }), {
      status: 401,
      code: 'unauthorized',
      message: 'An API key is required: send Authorization: Bearer <key>.',
    })
    await assertError(
      await server.request(`/v1/pets/${longId}`),
      {
        status: 400,
        code: 'invalid_request',
        message: 'Invalid request: path/petId must be <= 9007199254740991',
        details: [{ path: 'path/petId', message: 'must be <= 9007199254740991' }],
      },
      { deprecation: '@1767225600' },
    )
  })

  it('masks an internal error and logs it with the request id', async () => {
    const response = await server.request('/test/internal-error', {
      auth: false,
      headers: { 'x-request-id': 'boom-1' },
    })
    const text = await response.clone().text()
    const requestId = await assertError(response, {
      status: 500,
      code: 'internal_error',
      message: 'The service failed to complete the request. Quote the X-Request-Id when reporting it.',
    })
    assert.equal(requestId, 'boom-1')
    assert.ok(!text.includes('secret') && !text.includes('/etc/passwd') && !text.includes('stack'), text)

    const entries = logEntries<Record<string, unknown>>(server)
    const errorEntries = entries.filter((entry) => entry.reqId === 'boom-1' && entry.level === 50)
    assert.equal(errorEntries.length, 1, JSON.stringify(entries.filter((entry) => entry.reqId === 'boom-1')))
    const [entry] = errorEntries
    assert.equal(entry?.msg, 'request failed')
    const err = entry?.err as { type: string; message: string; stack: string }
    assert.equal(err.type, 'Error')
    assert.equal(err.message, SECRET)
    assert.match(err.stack, /^Error: secret internal detail \/etc\/passwd\n/)
    // The failure's own line, with its details, as before; the access line carries the answer's code.
    assert.deepEqual(
      entries
        .filter((entry) => entry.reqId === 'boom-1')
        .map(({ level, msg, code, statusCode }) => ({ level, msg, code, statusCode })),
      [
        { level: 50, msg: 'request failed', code: undefined, statusCode: undefined },
        { level: 30, msg: 'request completed', code: 'internal_error', statusCode: 500 },
      ],
    )
  })

  describe('requests Node cannot parse (raw sockets)', () => {
    it('answers request headers over 16 KiB with 431 request_header_fields_too_large', async () => {
      const response = await rawExchange(
        server.baseUrl,
        `GET /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nX-Padding: ` +
          `${'a'.repeat(17 * 1024)}\r\n\r\n`,
      )
      const requestId = assertRawError(
        response,
        {
          status: 431,
          code: 'request_header_fields_too_large',
          message: 'The request line and headers are larger than the 16 KiB limit.',
        },
        { connection: 'close', ...CORS },
      )
      assert.match(requestId, UUID)
    })

    it("answers an HTTP/1.1 request without Host with 400 and the Error body, not Node's bare 400", async () => {
      const response = await rawExchange(
        server.baseUrl,
        `GET /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nConnection: close\r\n\r\n`,
      )
      assertRawError(
        response,
        {
          status: 400,
          code: 'invalid_request',
          message: 'An HTTP/1.1 request must have a Host header.',
          details: [{ path: 'header/host', message: 'is required' }],
        },
        { 'cache-control': 'no-store', ...CORS },
      )
      // HTTP/1.0 has no Host requirement.
      const old = await rawExchange(server.baseUrl, `GET /healthz HTTP/1.0\r\n\r\n`)
      assert.equal(old.status, 200)
    })

    it('answers an empty Host with 400 and the Error body, in HTTP/1.1 and 1.0', async () => {
      for (const version of ['1.1', '1.0']) {
        const response = await rawExchange(
          server.baseUrl,
          `GET /v1/pets/1 HTTP/${version}\r\nHost: \r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
            'Connection: close\r\n\r\n',
        )
        assertRawError(
          response,
          {
            status: 400,
            code: 'invalid_request',
            message: 'The Host header must name a host.',
            details: [{ path: 'header/host', message: 'must not be empty' }],
          },
          { 'cache-control': 'no-store', ...CORS },
        )
      }
    })

    it('refuses a Host header unfit for the absolute URLs it would go into (Link, Location) with 400', async () => {
      const body = JSON.stringify({ name: 'Rex', categoryId: 1 })
      for (const [request, host] of [
        ['GET /v1/pets/1 HTTP/1.1\r\n', 'evil.example/"><x'],
        [
          `POST /v1/pets HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`,
          'evil.example/"><x',
        ],
        // A port no URL can carry.
        ['GET /v1/pets/1 HTTP/1.1\r\n', 'a.example:65536'],
        ['GET /v1/pets/1 HTTP/1.1\r\n', '[::1]:99999'],
      ] as const) {
        const response = await rawExchange(
          server.baseUrl,
          `${request}Host: ${host}\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nConnection: ` +
            `close\r\n\r\n${request.startsWith('POST') ? body : ''}`,
        )
        assertRawError(
          response,
          {
            status: 400,
            code: 'invalid_request',
            message: 'The Host header is not a valid host name.',
            details: [{ path: 'header/host', message: 'is not a host name' }],
          },
          { 'cache-control': 'no-store' },
        )
        // getPet's refusal is still deprecated; only the successor link, which needs the host, is left out.
        const deprecated = request.startsWith('GET')
        assert.equal(response.headers.deprecation, deprecated ? '@1767225600' : undefined)
        assert.equal(response.headers.sunset, deprecated ? 'Thu, 05 Dec 2030 00:00:00 GMT' : undefined)
        assert.equal(response.headers.link, undefined)
      }
      const highestPort = await rawExchange(
        server.baseUrl,
        `GET /v1/pets/999999 HTTP/1.1\r\nHost: a.example:65535\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
          'Connection: close\r\n\r\n',
      )
      assert.equal(highestPort.status, 404)
      assert.equal(highestPort.headers.link, '<http://a.example:65535/v1/pets>; rel="successor-version"')
    })

    it('takes a Host that is a registered name with _ or ~ (RFC 3986 unreserved), as service names have', async () => {
      const body = JSON.stringify({ name: 'Rex', categoryId: 1 })
      const created = await rawExchange(
        server.baseUrl,
        `POST /v1/pets HTTP/1.1\r\nHost: pet_store:8080\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      )
      assert.equal(created.status, 201)
      const { id } = JSON.parse(created.body) as { id: number }
      assert.equal(created.headers.location, `http://pet_store:8080/v1/pets/${id}`)
      const read = await rawExchange(
        server.baseUrl,
        `GET /v1/pets/${id} HTTP/1.1\r\nHost: shop~1.internal\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
          'Connection: close\r\n\r\n',
      )
      assert.equal(read.status, 200)
      assert.equal(read.headers.link, '<http://shop~1.internal/v1/pets>; rel="successor-version"')
    })

    it("serves a request whose Expect is not 100-continue as if the expectation were absent, not with \
Node's bare 417", async () => {
      const response = await rawExchange(
        server.baseUrl,
        `GET /v1/pets/999999 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nExpect: ` +
          `200-ok\r\nConnection: close\r\n\r\n`,
      )
      assertRawError(
        response,
        { status: 404, code: 'not_found', message: 'No pet has id 999999.' },
        { 'cache-control': 'no-store' },
      )
    })

    it('answers a HEAD request it cannot parse without a body, as HEAD requires', async () => {
      const { responses, leftover } = await exchangeRaw(
        server.baseUrl,
        Buffer.from('HEAD /v1/pets HTTP/1.1\r\nHost: localhost\r\nX-Folded: a\r\n b\r\n\r\n'),
        { head: true, endAfterWrite: false },
      )
      assert.equal(leftover, '')
      assert.deepEqual(
        responses.map(({ status, body, headers }) => ({ status, body, type: headers['content-type'] })),
        [{ status: 400, body: '', type: JSON_CONTENT_TYPE }],
      )
    })

    it('answers a request it cannot parse after the responses to the requests pipelined before it', async () => {
      const body = '{"name":"Piped","categoryId":1}'
      const { responses, leftover } = await exchangeRaw(
        server.baseUrl,
        Buffer.from(
          `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
            `GET /v1/pets/999999 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n\r\n` +
            'GARBAGE\r\n\r\n',
        ),
        { head: false, endAfterWrite: false },
      )
      assert.equal(leftover, '')
      const created = JSON.parse(responses[0]?.body ?? '') as { id: number }
      assert.deepEqual(
        responses.map(({ status, body }) => ({ status, body: JSON.parse(body) as unknown })),
        [
          { status: 201, body: { id: created.id, name: 'Piped', categoryId: 1, status: 'available' } },
          { status: 404, body: { code: 'not_found', message: 'No pet has id 999999.', status: 404 } },
          {
            status: 400,
            body: { code: 'invalid_request', message: 'The request could not be parsed as HTTP/1.1.', status: 400 },
          },
        ],
      )
      const stored = await server.request(`/v1/pets/${created.id}`)
      assert.equal(stored.status, 200)
    })

    it('answers a malformed request line with 400 invalid_request', async () => {
      for (const head of [
        'GARBAGE\r\n\r\n',
        'GET /v1/pets HTTP/9.9\r\nHost: localhost\r\n\r\n',
        'GET  HTTP/1.1\r\n\r\n',
      ]) {
        const response = await rawExchange(server.baseUrl, head)
        const requestId = assertRawError(
          response,
          { status: 400, code: 'invalid_request', message: 'The request could not be parsed as HTTP/1.1.' },
          { connection: 'close', ...CORS },
        )
        assert.match(requestId, UUID)
      }
    })
  })
})
