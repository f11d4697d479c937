// A request with two Host headers (RFC 9112 section 3.2), two Authorization or two Content-Type headers is refused
// with 400, before authentication: Node would silently keep the first while a proxy in front may have read the last.
// The refusal carries the CORS headers, though it comes before the CORS hook: a browser's script can read it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertRawError, CORS } from '../../helpers/error-assert.js'
import { rawExchange } from '../../helpers/raw-http.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

const AUTH = `Authorization: Bearer ${TEST_API_KEY}\r\n`

describe('repeated Host, Authorization and Content-Type headers', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  const send = (head: string) => rawExchange(server.baseUrl, `${head}Connection: close\r\n\r\n`)

  const twoHosts = {
    status: 400,
    code: 'invalid_request',
    message: 'The Host header must be sent only once.',
    details: [{ path: 'header/host', message: 'must be sent only once' }],
  }
  const twoAuthorizations = {
    status: 400,
    code: 'invalid_request',
    message: 'The Authorization header must be sent only once.',
    details: [{ path: 'header/authorization', message: 'must be sent only once' }],
  }
  const twoContentTypes = {
    status: 400,
    code: 'invalid_request',
    message: 'The Content-Type header must be sent only once.',
    details: [{ path: 'header/content-type', message: 'must be sent only once' }],
  }

  it('refuses two Host headers, equal or not, with a valid key', async () => {
    assertRawError(await send(`GET /v1/pets HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n${AUTH}`), twoHosts, CORS)
    assertRawError(await send(`GET /v1/pets HTTP/1.1\r\nHost: a.example\r\nhost: a.example\r\n${AUTH}`), twoHosts, CORS)
  })

  it('refuses two Host headers before authentication and outside the API', async () => {
    assertRawError(await send('GET /v1/pets HTTP/1.1\r\nHost: a.example\r\nHOST: b.example\r\n'), twoHosts, CORS)
    assertRawError(await send('GET /healthz HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n'), twoHosts, CORS)
  })

  it('refuses two Authorization headers, whichever of them is valid', async () => {
    assertRawError(
      await send(`GET /v1/pets HTTP/1.1\r\nHost: a\r\n${AUTH}Authorization: Bearer wrong\r\n`),
      twoAuthorizations,
      CORS,
    )
    assertRawError(
      await send(`GET /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer wrong\r\n${AUTH}`),
      twoAuthorizations,
      CORS,
    )
    assertRawError(
      await send(`GET /v1/pets HTTP/1.1\r\nHost: a\r\n${AUTH}${AUTH.toLowerCase()}`),
      twoAuthorizations,
      CORS,
    )
  })

  it('refuses two Content-Type headers, whichever comes first, and creates nothing', async () => {
    const body = '{"name":"Twice","categoryId":1}'
    const post = (first: string, second: string) =>
      rawExchange(
        server.baseUrl,
        `POST /v1/pets HTTP/1.1\r\nHost: a\r\n${AUTH}Content-Type: ${first}\r\ncontent-type: ${second}\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      )
    assertRawError(await post('application/json', 'text/plain'), twoContentTypes, CORS)
    assertRawError(await post('text/plain', 'application/json'), twoContentTypes, CORS)
    assertRawError(await post('application/json', 'application/json; charset=latin1'), twoContentTypes, CORS)
    // Without a key too: refused before authentication.
    assertRawError(
      await send('POST /v1/pets HTTP/1.1\r\nHost: a\r\nContent-Type: a/b\r\nContent-Type: c/d\r\n'),
      twoContentTypes,
      CORS,
    )
    assert.equal((await send(`GET /v1/pets HTTP/1.1\r\nHost: a\r\n${AUTH}`)).body, '[]')
  })

  it('refuses them also on a path the router cannot decode', async () => {
    assertRawError(
      await send(`GET /v1/pets/%ZZ HTTP/1.1\r\nHost: a\r\n${AUTH}Authorization: Bearer wrong\r\n`),
      twoAuthorizations,
      CORS,
    )
  })

  it('sees the second one after 2000 other header lines, where Node stops listing headers by default', async () => {
    // 2100 short lines stay far below the 16 KiB limit of the request head.
    const filler = 'X-A: b\r\n'.repeat(2100)
    assertRawError(
      await send(`GET /v1/pets HTTP/1.1\r\nHost: a\r\n${AUTH}${filler}Authorization: Bearer wrong\r\n`),
      twoAuthorizations,
      CORS,
    )
    assertRawError(
      await send(`GET /healthz HTTP/1.1\r\nHost: a.example\r\n${filler}Host: b.example\r\n`),
      twoHosts,
      CORS,
    )
    assert.equal((await send(`GET /v1/pets HTTP/1.1\r\nHost: a\r\n${filler}${AUTH}`)).status, 200)
  })

  it('still serves a request with one of each', async () => {
    const response = await send(`GET /v1/pets HTTP/1.1\r\nHost: a\r\n${AUTH}`)
    assert.equal(response.status, 200)
    assert.equal(response.body, '[]')
  })
})
