// A client that sends a whole request and resets the connection at once (a crawler or a scanner that gives up,
// one packet with RST behind it): Node still hands the request over, but its socket is gone by then and can no
// longer say whose it was. The request must still be counted and logged under the client's address; it once took
// the whole server down (the rate limit and the access log read an address that was not there).
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { requestAddress } from '../../../src/http/auth/client-network.js'
import { logEntries, startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

type Entry = Record<string, unknown>

for (const trustProxy of [undefined, '127.0.0.1']) {
  describe(`a request whose client resets the connection at once (TRUST_PROXY ${trustProxy ?? 'unset'})`, () => {
    let server: TestServer
    before(async () => {
      server = await startTestServer({ env: trustProxy ? { TRUST_PROXY: trustProxy } : {} })
    })
    after(() => server.close())

    const entries = (): Entry[] => logEntries<Entry>(server)

    async function sendAndReset(path: string, requestId: string, headers = ''): Promise<Entry[]> {
      const { port } = new URL(server.baseUrl)
      const socket = connect(Number(port), '127.0.0.1')
      socket.on('error', () => {})
      await new Promise((resolve) => socket.once('connect', resolve))
      socket.write(`GET ${path} HTTP/1.1\r\nHost: a\r\nX-Request-Id: ${requestId}\r\n${headers}\r\n`)
      socket.resetAndDestroy()
      // At most 5 s (a request that broke writes no line), then a while longer, for a line written after the first.
      const deadline = Date.now() + 5000
      while (!entries().some((entry) => entry.reqId === requestId) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10))
      await new Promise((resolve) => setTimeout(resolve, 200))
      return entries().filter((entry) => entry.reqId === requestId)
    }

    for (const [path, headers] of [
      ['/healthz', ''],
      ['/', ''],
      ['/v1/pets', ''],
      ['/v1/pets', `Authorization: Bearer ${TEST_API_KEY}\r\n`],
    ] as const) {
      it(`logs GET ${path}${headers ? ' with a key' : ''} under the client's address and serves on`, async () => {
        const requestId = `reset-${path.replaceAll('/', '-')}-${headers ? 'key' : 'anonymous'}`
        const logged = await sendAndReset(path, requestId, headers)
        assert.deepEqual(
          logged.map(({ level, remoteAddress }) => ({ level, remoteAddress })),
          [{ level: 30, remoteAddress: '127.0.0.1' }],
        )
        assert.ok(!entries().some((entry) => (entry.level as number) >= 50), 'an error-level line was written')
        const health = await server.request('/healthz', { auth: false })
        assert.equal(health.status, 200)
        assert.deepEqual(await health.json(), { status: 'ok' })
      })
    }
  })
}

// A reset that arrives before the server accepts the connection leaves no address to read at all (the production
// server meets this under load; the test's own client is accepted first): it is counted and logged as ''.
it('takes an address Fastify could not read (undefined) as the empty string', () => {
  assert.equal(requestAddress({ ip: undefined }), '')
  assert.equal(requestAddress({ ip: '::1' }), '::1')
})
