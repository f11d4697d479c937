// Endpoints on one host (paths of one receiver service): hanging ones beside a healthy one. Connections are not
// bounded per host below the instance's total, so the hanging endpoints hold only their own places and the
// healthy one's attempts are sent at once, each answered on its first attempt.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { deliveriesWhen, LOOPBACK_WEBHOOKS, QUICK_WEBHOOKS, registerWebhook } from '../../helpers/webhooks.js'

const HANGING = 4
const EVENTS = 20
const ATTEMPT_TIMEOUT_MS = 2000

describe(`endpoints sharing a host, on ${TEST_STORE}`, () => {
  let server: TestServer
  let host: Server
  let origin: string
  const sockets = new Set<Socket>()
  let healthyRequests = 0

  before(async () => {
    server = await startTestServer({
      env: { ...LOOPBACK_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE: '10s' },
      tuning: {
        ...QUICK_WEBHOOKS,
        webhookAttemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
        webhookLeaseMs: 10_000,
        webhookConcurrencyPerEndpoint: 8,
        webhookConcurrency: 64,
      },
    })
    // /ok answers 204 at once; every other path accepts the request and never answers.
    host = createServer((request, response) => {
      request.resume()
      if (request.url !== '/ok') return
      healthyRequests++
      request.on('end', () => response.writeHead(204).end())
    })
    host.on('connection', (socket) => {
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
    })
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`
  })
  after(async () => {
    await server.close()
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => host.close(resolve))
  })

  it('delivers to the healthy endpoint at its first attempt while the others on its host hang', async () => {
    for (let index = 0; index < HANGING; index++)
      await registerWebhook(server, undefined, { url: `${origin}/hang/${index}`, types: ['pet.created'] })
    const healthy = await registerWebhook(server, undefined, { url: `${origin}/ok`, types: ['pet.created'] })

    for (let index = 0; index < EVENTS; index++) {
      const response = await server.request('/v1/pets', { json: { name: `Shared ${index}`, categoryId: 1 } })
      assert.equal(response.status, 201)
      await response.arrayBuffer()
    }
    const log = await deliveriesWhen(
      server,
      healthy.id,
      (deliveries) => deliveries.length === EVENTS && deliveries.every((delivery) => delivery.status !== 'pending'),
    )
    assert.deepEqual(
      log.map((delivery) =>
        delivery.attempts.map(({ attempt, outcome, responseStatus }) => [attempt, outcome, responseStatus]),
      ),
      Array.from({ length: EVENTS }, () => [[1, 'succeeded', 204]]),
    )
    assert.equal(healthyRequests, EVENTS)
  })
})
