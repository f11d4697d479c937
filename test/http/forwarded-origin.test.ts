// Behind a trusted proxy (TRUST_PROXY), the origin of Location and Link is the one the proxy forwards: its host
// is held to the rule of a Host header, and its scheme (X-Forwarded-Proto) to http or https, so that a forwarded
// header can never make those links name another kind of URL. The forwarded client address is logged, and a key
// of the service written there by a client is redacted.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertRawError } from '../helpers/error-assert.js'
import { rawExchange } from '../helpers/raw-http.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

describe('the origin a trusted proxy forwards', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: '127.0.0.1', LOG_LEVEL: 'debug' } })
  })
  after(() => server.close())

  const getPet = (forwarded: string) =>
    rawExchange(
      server.baseUrl,
      `GET /v1/pets/999999 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n${forwarded}` +
        'Connection: close\r\n\r\n',
    )

  it('builds links on the forwarded host and scheme', async () => {
    for (const [proto, scheme] of [
      ['https', 'https'],
      ['HTTPS', 'https'],
      ['http', 'http'],
    ] as const) {
      const response = await getPet(`X-Forwarded-Host: shop.example\r\nX-Forwarded-Proto: ${proto}\r\n`)
      assert.equal(response.status, 404)
      assert.equal(response.headers.link, `<${scheme}://shop.example/v1/pets>; rel="successor-version"`)
    }
  })

  it('refuses a forwarded scheme other than http or https with 400', async () => {
    for (const proto of ['javascript', 'https, data', 'ftp', 'http:']) {
      const response = await getPet(`X-Forwarded-Host: shop.example\r\nX-Forwarded-Proto: ${proto}\r\n`)
      assertRawError(
        response,
        {
          status: 400,
          code: 'invalid_request',
          message: 'The X-Forwarded-Proto header is not http or https.',
          details: [{ path: 'header/x-forwarded-proto', message: 'must be http or https' }],
        },
        { link: null, 'cache-control': 'no-store' },
      )
    }
  })

  it('logs the forwarded address, with a key of the service in it redacted', async () => {
    const key = 'pst_Zm9vYmFyYmF6cXV4MDEyMzQ1Njc4OWFiY2RlZmdoaWo'
    for (const [forwardedFor, logged] of [
      ['203.0.113.7', '203.0.113.7'],
      [key, '[redacted]'],
    ] as const) {
      const requestId = `forwarded-${logged.length}`
      const response = await rawExchange(
        server.baseUrl,
        `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: ${forwardedFor}\r\n` +
          `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n`,
      )
      assert.equal(response.status, 200)
      const entries = server.logs
        .flatMap((chunk) => chunk.split('\n'))
        .filter((line) => line.includes(`"reqId":"${requestId}"`))
        .map((line) => JSON.parse(line) as { msg: string; remoteAddress?: string; req?: { remoteAddress: string } })
      assert.ok(!JSON.stringify(entries).includes(key.slice(4)), `the key is in the log: ${JSON.stringify(entries)}`)
      assert.deepEqual(
        entries.map((entry) => [entry.msg, entry.req?.remoteAddress ?? entry.remoteAddress]),
        [
          ['incoming request', logged],
          ['request completed', logged],
        ],
      )
    }
  })
})
