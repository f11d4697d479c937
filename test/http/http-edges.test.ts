// Small holes found from outside: links for HTTP/1.0 requests without Host, authentication before a path the
// router cannot decode, 405 for every method Node's parser accepts (on the public routes too), CONNECT refused with
// the Error body, a trailing slash that is not a pet id, Range ignored, and a Retry-After on /readyz when the
// database is down.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { assertError, assertRawError, CORS } from '../helpers/error-assert.js'
import { openRawConnection, rawExchange } from '../helpers/raw-http.js'
import { logEntries, startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

const AUTH = `Authorization: Bearer ${TEST_API_KEY}\r\n`

describe('HTTP edges', () => {
  let server: TestServer
  let origin: string
  before(async () => {
    server = await startTestServer()
    origin = server.baseUrl
    for (const name of ['Rex', 'Tom'])
      assert.equal((await server.request('/v1/pets', { json: { name, categoryId: 1 } })).status, 201)
  })
  after(() => server.close())

  const send = (head: string, body = '') => rawExchange(server.baseUrl, `${head}\r\n${body}`)

  describe('an HTTP/1.0 request without Host gets links to the address it reached', () => {
    it('Link rel="next" of a list', async () => {
      const response = await send(`GET /v1/pets?limit=1 HTTP/1.0\r\n${AUTH}`)
      assert.equal(response.status, 200)
      assert.match(
        response.headers.link ?? '',
        new RegExp(`^<${origin}/v1/pets\\?limit=1&cursor=[A-Za-z0-9._~-]+>; rel="next"$`),
      )
      assert.deepEqual(JSON.parse(response.body), [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }])
    })

    it('Location of a created pet', async () => {
      const body = '{"name":"Kit","categoryId":1}'
      const response = await send(
        `POST /v1/pets HTTP/1.0\r\n${AUTH}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`,
        body,
      )
      assert.equal(response.status, 201)
      const created = JSON.parse(response.body) as { id: number }
      assert.deepEqual(created, { id: created.id, name: 'Kit', categoryId: 1, status: 'available' })
      assert.equal(response.headers.location, `${origin}/v1/pets/${created.id}`)
    })

    it('Link rel="successor-version" of the deprecated getPet', async () => {
      const response = await send(`GET /v1/pets/1 HTTP/1.0\r\n${AUTH}`)
      assert.equal(response.status, 200)
      assert.equal(response.headers.link, `<${origin}/v1/pets>; rel="successor-version"`)
    })

    it('while an HTTP/1.0 request with Host still gets links on its Host', async () => {
      const response = await send(`GET /v1/pets/1 HTTP/1.0\r\nHost: pets.example:8080\r\n${AUTH}`)
      assert.equal(response.headers.link, '<http://pets.example:8080/v1/pets>; rel="successor-version"')
    })
  })

  describe('a path that is not valid percent-encoding', () => {
    it('asks for a key first (401), like any other path under /v1', async () => {
      assertRawError(
        await send('GET /v1/pets/%ZZ HTTP/1.1\r\nHost: a\r\nConnection: close\r\n'),
        { status: 401, code: 'unauthorized', message: 'An API key is required: send Authorization: Bearer <key>.' },
        { 'www-authenticate': 'Bearer realm="petstore"', 'cache-control': 'no-store' },
      )
      assertRawError(
        await send('GET /v1/pets/%ZZ HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer wrong\r\nConnection: close\r\n'),
        { status: 401, code: 'unauthorized', message: 'The API key is not valid.' },
        {
          'www-authenticate':
            'Bearer realm="petstore", error="invalid_token", error_description="The API key is not valid"',
        },
      )
    })

    it('is 400 with a valid key, and 400 without one outside /v1', async () => {
      assertRawError(
        await send(`GET /v1/pets/%ZZ HTTP/1.1\r\nHost: a\r\n${AUTH}Connection: close\r\n`),
        { status: 400, code: 'invalid_request', message: 'The request path is not validly percent-encoded.' },
        { 'cache-control': 'no-store', ...CORS },
      )
      assertRawError(
        await send('GET /docs/%ZZ HTTP/1.1\r\nHost: a\r\nConnection: close\r\n'),
        { status: 400, code: 'invalid_request', message: 'The request path is not validly percent-encoded.' },
        { 'cache-control': null, ...CORS },
      )
      // A target that is neither a path nor an http(s) URL is not a percent-encoding problem.
      for (const target of ['ftp://b.example/v1/pets/1', 'ws://b.example/v1/pets'])
        assertRawError(await send(`GET ${target} HTTP/1.1\r\nHost: a\r\n${AUTH}Connection: close\r\n`), {
          status: 400,
          code: 'invalid_request',
          message: 'The request target must be a path, or an absolute http or https URL.',
        })
    })
  })

  describe('methods the router knows but a resource does not allow', () => {
    it('TRACE on /v1/pets is 405 with Allow', async () => {
      assertRawError(
        await send(`TRACE /v1/pets HTTP/1.1\r\nHost: a\r\n${AUTH}Connection: close\r\n`),
        {
          status: 405,
          code: 'method_not_allowed',
          message: 'TRACE is not allowed on this resource; allowed: GET, POST, HEAD.',
        },
        { allow: 'GET, POST, HEAD' },
      )
      assertRawError(
        await send(`TRACE /v1/pets/1 HTTP/1.1\r\nHost: a\r\n${AUTH}Connection: close\r\n`),
        {
          status: 405,
          code: 'method_not_allowed',
          message: 'TRACE is not allowed on this resource; allowed: GET, PATCH, DELETE, HEAD.',
        },
        { allow: 'GET, PATCH, DELETE, HEAD' },
      )
    })

    it('is 405 before the body is read, whatever its type', async () => {
      await assertError(
        await server.request('/v1/pets', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' }),
        {
          status: 405,
          code: 'method_not_allowed',
          message: 'PUT is not allowed on this resource; allowed: GET, POST, HEAD.',
        },
        { allow: 'GET, POST, HEAD' },
      )
      assertRawError(
        await send(
          `QUERY /v1/pets HTTP/1.1\r\nHost: a\r\n${AUTH}Content-Type: text/plain\r\nContent-Length: ` +
            `1\r\nConnection: close\r\n`,
          'x',
        ),
        {
          status: 405,
          code: 'method_not_allowed',
          message: 'QUERY is not allowed on this resource; allowed: GET, POST, HEAD.',
        },
        { allow: 'GET, POST, HEAD' },
      )
    })

    it('is 405 on the public routes too, without a key: the document, the docs page, health, metrics', async () => {
      const cases: [string, string][] = [
        ['POST', '/v1/openapi.json'],
        ['POST', '/docs'],
        ['DELETE', '/docs/json'],
        ['PUT', '/docs/static/index.html'],
        ['POST', '/healthz'],
        ['DELETE', '/readyz'],
        ['PUT', '/metrics'],
        ['POST', '/'],
        // Methods Fastify's router does not know, answered from the paths the service has.
        ['PROPFIND', '/v1/openapi.json'],
        ['LOCK', '/docs/static/index.html'],
        ['PURGE', '/metrics'],
        ['SEARCH', '/'],
        // The page's own address, which the wildcard of its files matches with nothing after the slash.
        ['POST', '/docs/'],
        ['PROPFIND', '/docs/'],
      ]
      for (const [method, path] of cases) {
        await assertError(
          await server.request(path, { method, auth: false }),
          {
            status: 405,
            code: 'method_not_allowed',
            message: `${method} is not allowed on this resource; allowed: GET, HEAD.`,
          },
          { allow: 'GET, HEAD' },
        )
      }
      // The asterisk-form target names no resource: 404 for every method, as for GET.
      for (const method of ['GET', 'POST', 'PROPFIND'])
        assertRawError(await send(`${method} * HTTP/1.1\r\nHost: a\r\nConnection: close\r\n`), {
          status: 404,
          code: 'not_found',
          message: `No route ${method} *.`,
        })
      // The routes themselves still answer.
      for (const path of ['/v1/openapi.json', '/docs/', '/docs/json', '/healthz', '/readyz', '/metrics', '/'])
        assert.equal((await server.request(path, { auth: false })).status, 200, path)
    })

    it("is 405 for methods Node parses beyond Fastify's own (WebDAV, PURGE); 404 on a path without route", async () => {
      for (const method of ['PROPFIND', 'LOCK', 'PURGE', 'M-SEARCH']) {
        assertRawError(
          await send(
            `${method} /v1/pets/1 HTTP/1.1\r\nHost: a\r\n${AUTH}Content-Type: text/xml\r\nContent-Length: ` +
              `7\r\nConnection: close\r\n`,
            '<a></a>',
          ),
          {
            status: 405,
            code: 'method_not_allowed',
            message: `${method} is not allowed on this resource; allowed: GET, PATCH, DELETE, HEAD.`,
          },
          { allow: 'GET, PATCH, DELETE, HEAD' },
        )
        assertRawError(await send(`${method} /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n`), {
          status: 405,
          code: 'method_not_allowed',
          message: `${method} is not allowed on this resource; allowed: GET, HEAD.`,
        })
        assertRawError(await send(`${method} /v1/nothing HTTP/1.1\r\nHost: a\r\n${AUTH}Connection: close\r\n`), {
          status: 404,
          code: 'not_found',
          message: `No route ${method} /v1/nothing.`,
        })
      }
      // A method the parser does not know cannot be read as a request at all.
      assertRawError(await send(`BREW /v1/pets HTTP/1.1\r\nHost: a\r\n${AUTH}Connection: close\r\n`), {
        status: 400,
        code: 'invalid_request',
        message: 'The request could not be parsed as HTTP/1.1.',
      })
    })

    it('gives a request the parser cannot read, and a CONNECT, one access-log line each', async () => {
      const cases: [raw: string, status: number, code: string, message: string, method?: string][] = [
        [
          `BREW /v1/pets HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`,
          400,
          'invalid_request',
          'The request could not be parsed as HTTP/1.1.',
        ],
        [
          `GET /v1/pets HTTP/1.1\r\nHost: a\r\nX-Big: ${'b'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
          431,
          'request_header_fields_too_large',
          'The request line and headers are larger than the 16 KiB limit.',
        ],
        [
          `CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n`,
          400,
          'invalid_request',
          'This server is not a proxy: CONNECT is not served.',
          'CONNECT',
        ],
      ]
      for (const [raw, status, code, message, method] of cases) {
        const connection = await openRawConnection(server.baseUrl)
        await connection.write(raw)
        const response = await connection.nextResponse()
        assert.equal(response.status, status)
        const requestId = response.headers['x-request-id'] ?? ''
        await connection.closed
        // Its line follows the answer: read the log until it is there (the test's time-out bounds the wait).
        const linesOfRequest = () =>
          logEntries<Record<string, unknown>>(server).filter((entry) => entry.reqId === requestId)
        while (linesOfRequest().length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
        const lines = linesOfRequest()
        assert.equal(lines.length, 1, JSON.stringify(lines))
        const { time, pid, hostname, responseTime, ...rest } = lines[0] ?? {}
        assert.equal(typeof time, 'number')
        assert.equal(typeof pid, 'number')
        assert.equal(typeof hostname, 'string')
        assert.equal(typeof responseTime, 'number')
        assert.deepEqual(rest, {
          level: 30,
          reqId: requestId,
          ...(method === undefined ? {} : { method }),
          statusCode: status,
          remoteAddress: '127.0.0.1',
          code,
          errorMessage: message,
          msg: 'request completed',
        })
      }
    })

    it('CONNECT is refused with the Error body; what follows it on the connection is not read', async () => {
      const connection = await openRawConnection(server.baseUrl)
      await connection.write(
        `CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n${AUTH}\r\n` + `GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n`,
      )
      const response = await connection.nextResponse()
      assertRawError(
        response,
        { status: 400, code: 'invalid_request', message: 'This server is not a proxy: CONNECT is not served.' },
        { connection: 'close', 'cache-control': 'no-store', ...CORS },
      )
      await connection.closed
      assert.match(response.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/)
      // The GET after it got no answer: the connection ended with the refusal.
      assert.equal(
        await connection.nextResponse().then(
          (next) => next.status,
          () => 'none',
        ),
        'none',
      )
    })

    it('answers HEAD with the Content-Length GET gets, on a path without a route and where GET is not \
allowed', async () => {
      for (const [path, auth] of [
        ['/v1/nothing', true],
        ['/v1/pets/1/', true],
        ['/nothing', false],
        ['/docs/index.html', false],
        ['/v1/webhooks/1/rotate-secret', true],
      ] as const) {
        const get = await server.request(path, { auth })
        const head = await server.request(path, { method: 'HEAD', auth })
        assert.equal(head.status, get.status, path)
        assert.ok([404, 405].includes(get.status), path)
        assert.equal(head.headers.get('content-length'), String((await get.text()).length), path)
        assert.equal(head.headers.get('allow'), get.headers.get('allow'), path)
        assert.equal(await head.text(), '', path)
      }
    })

    it('a client that resets the connection after the CONNECT refusal does not stop the server', async () => {
      const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1')
      socket.on('error', () => {})
      await once(socket, 'connect')
      socket.write('CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n')
      await once(socket, 'data')
      // The server reads ECONNRESET on its side of the connection: with no listener for it, an uncaught exception.
      socket.resetAndDestroy()
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.equal((await server.request('/healthz', { auth: false })).status, 200)
    })

    it('TRACE or PROPFIND without a key is 401, on a path that exists or not', async () => {
      for (const head of ['TRACE /v1/pets', 'PROPFIND /v1/pets/1', 'PROPFIND /v1/nothing'])
        assertRawError(await send(`${head} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n`), {
          status: 401,
          code: 'unauthorized',
          message: 'An API key is required: send Authorization: Bearer <key>.',
        })
    })

    it('QUERY on a path without route is 404 (401 without a key), with a Content-Type or without', async () => {
      // Fastify refuses a QUERY without Content-Type (RFC 10008) before any handler: a path without route must not
      // answer that 400, which would also tell a client without a key that the path does not exist.
      for (const contentType of ['', 'Content-Type: application/json\r\n']) {
        const body = contentType === '' ? '' : '{}'
        const framing = `${contentType}Content-Length: ${body.length}\r\nConnection: close\r\n`
        assertRawError(await send(`QUERY /v1/nothing HTTP/1.1\r\nHost: a\r\n${framing}`, body), {
          status: 401,
          code: 'unauthorized',
          message: 'An API key is required: send Authorization: Bearer <key>.',
        })
        assertRawError(await send(`QUERY /v1/nothing HTTP/1.1\r\nHost: a\r\n${AUTH}${framing}`, body), {
          status: 404,
          code: 'not_found',
          message: 'No route QUERY /v1/nothing.',
        })
        assertRawError(await send(`QUERY /nothing HTTP/1.1\r\nHost: a\r\n${framing}`, body), {
          status: 404,
          code: 'not_found',
          message: 'No route QUERY /nothing.',
        })
      }
    })
  })

  describe('a trailing slash after a collection', () => {
    it('is a plain 404, without the deprecation headers of getPet', async () => {
      await assertError(
        await server.request('/v1/pets/?limit=1'),
        { status: 404, code: 'not_found', message: 'No route GET /v1/pets/.' },
        { deprecation: null, sunset: null, link: null, 'cache-control': 'no-store' },
      )
      await assertError(await server.request('/v1/store/orders/'), {
        status: 404,
        code: 'not_found',
        message: 'No route GET /v1/store/orders/.',
      })
      await assertError(await server.request('/v1/pets/', { method: 'DELETE' }), {
        status: 404,
        code: 'not_found',
        message: 'No route DELETE /v1/pets/.',
      })
    })

    it('asks for a key first', async () => {
      await assertError(
        await server.request('/v1/pets/?limit=1', { auth: false }),
        { status: 401, code: 'unauthorized', message: 'An API key is required: send Authorization: Bearer <key>.' },
        { deprecation: null },
      )
    })
  })

  it('ignores Range: the whole representation, 200, however the range is written', async () => {
    // An API read, the document, and a static file of the docs page (served by a plugin that answers ranges).
    for (const path of ['/v1/pets/1', '/v1/openapi.json', '/docs/static/swagger-ui.css']) {
      const whole = await server.request(path)
      assert.equal(whole.status, 200, path)
      const body = await whole.text()
      for (const range of ['bytes=0-1', 'bytes=-5', 'bytes=100000-', 'items=0-1', 'nonsense']) {
        const response = await server.request(path, { headers: { range } })
        assert.deepEqual(
          {
            status: response.status,
            acceptRanges: response.headers.get('accept-ranges'),
            whole: (await response.text()) === body,
          },
          { status: 200, acceptRanges: null, whole: true },
          `${path} ${range}`,
        )
      }
    }
  })

  it('/readyz says when to ask again while the database is unreachable', async () => {
    const ping = server.store.ping
    server.store.ping = () => Promise.reject(new Error('database down'))
    try {
      await assertError(
        await server.request('/readyz', { auth: false }),
        { status: 503, code: 'unavailable', message: 'The database cannot be reached.' },
        { 'retry-after': '5' },
      )
    } finally {
      server.store.ping = ping
    }
  })
})
