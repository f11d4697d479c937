// A TLS failure at a receiver is reported in the delivery log by what went wrong, not by OpenSSL's error queue
// as Node quotes it (its source file paths, line numbers, internal codes and library names are the service's
// internals, and the log is read by every key holder with webhooks:manage).
import assert from 'node:assert/strict'
import { createServer, type AddressInfo, type Server } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { failedDelivery, LOOPBACK_WEBHOOKS, QUICK_WEBHOOKS } from '../../helpers/webhooks.js'

/** A TLS record: a fatal alert, handshake_failure (40). */
const HANDSHAKE_FAILURE_ALERT = Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28])

/**
 * The alert's reason as OpenSSL words it: `sslv3 alert handshake failure` up to OpenSSL 3.0 (Node 20),
 * `ssl/tls alert handshake failure` in later versions (Node 24); the rest of the line is the service's own.
 */
const REASON = process.versions.openssl.startsWith('3.0.') ? 'sslv3' : 'ssl/tls'

describe(`the delivery log of a receiver whose TLS fails, on ${TEST_STORE}`, () => {
  let server: TestServer
  let refuser: Server

  before(async () => {
    refuser = createServer((socket) => {
      socket.on('error', () => undefined)
      socket.once('data', () => socket.end(HANDSHAKE_FAILURE_ALERT))
    })
    await new Promise<void>((resolve) => refuser.listen(0, '127.0.0.1', resolve))
    server = await startTestServer({
      env: { ...LOOPBACK_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE: '50ms' },
      tuning: QUICK_WEBHOOKS,
    })
  })
  after(async () => {
    await server.close()
    await new Promise((resolve) => refuser.close(resolve))
  })

  it("says the alert, without OpenSSL's source files, codes or library names", async () => {
    const { port } = refuser.address() as AddressInfo
    const delivery = await failedDelivery(server, `https://127.0.0.1:${port}/hook`)
    const failed = {
      outcome: 'network_error',
      responseStatus: null,
      responseBody: null,
      error: `write EPROTO (TLS: ${REASON} alert handshake failure (SSL alert number 40))`,
    }
    assert.deepEqual(
      delivery.attempts.map(({ outcome, responseStatus, responseBody, error }) => ({
        outcome,
        responseStatus,
        responseBody,
        error,
      })),
      [failed, failed],
    )
  })
})
