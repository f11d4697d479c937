// A request whose target is in absolute-form (`GET http://host/v1/pets HTTP/1.1`): RFC 9112 section 3.2.2 says the
// origin server must take the host from the target and ignore Host, so Location and Link name the target's host.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertRawError } from '../helpers/error-assert.js'
import { rawExchange } from '../helpers/raw-http.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

const AUTH = `Authorization: Bearer ${TEST_API_KEY}\r\n`

describe('absolute-form request targets', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
    for (const name of ['Rex', 'Tom'])
      assert.equal((await server.request('/v1/pets', { json: { name, categoryId: 1 } })).status, 201)
  })
  after(() => server.close())

  const send = (head: string, body = '') => rawExchange(server.baseUrl, `${head}Connection: close\r\n\r\n${body}`)

  it("builds Link on the target's host, not on Host", async () => {
    const response = await send(`GET http://b.example:8443/v1/pets?limit=1 HTTP/1.1\r\nHost: a.example\r\n${AUTH}`)
    assert.equal(response.status, 200)
    assert.match(
      response.headers.link ?? '',
      /^<http:\/\/b\.example:8443\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/,
    )
    // `_` is an unreserved character of a registered name (RFC 3986), as in container and service names.
    const underscored = await send(`GET http://pet_store:8080/v1/pets?limit=1 HTTP/1.1\r\nHost: a.example\r\n${AUTH}`)
    assert.equal(underscored.status, 200)
    assert.match(
      underscored.headers.link ?? '',
      /^<http:\/\/pet_store:8080\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/,
    )
  })

  it("builds Location on the target's host, with or without Host", async () => {
    const body = '{"name":"Kit","categoryId":1}'
    for (const [version, host] of [
      ['1.1', 'Host: a.example\r\n'],
      ['1.0', ''],
    ] as const) {
      const response = await send(
        `POST HTTP://B.example/v1/pets HTTP/${version}\r\n${host}${AUTH}Content-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\n`,
        body,
      )
      assert.equal(response.status, 201, version)
      const { id } = JSON.parse(response.body) as { id: number }
      assert.equal(response.headers.location, `http://B.example/v1/pets/${id}`, version)
    }
  })

  it('refuses a target whose host is not a plain host name or IP literal, whatever Host says', async () => {
    for (const target of [
      'http://b*b.example/v1/pets/1',
      'http://user@b.example/v1/pets/1',
      // A port no URL can carry: the router cannot read the target at all, and says so of its host, not its path.
      'http://b.example:65536/v1/pets/1',
      'http://[::1]:99999/v1/pets?limit=1',
    ]) {
      assertRawError(
        await send(`GET ${target} HTTP/1.1\r\nHost: a.example\r\n${AUTH}`),
        { status: 400, code: 'invalid_request', message: 'The host of the request target is not a valid host name.' },
        { 'cache-control': 'no-store' },
      )
    }
  })
})
