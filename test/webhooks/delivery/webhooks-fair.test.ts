// Fair delivery over the real server on loopback: nineteen receivers that accept and never answer, and one that
// answers 200 at once and drips its body without end, beside a healthy one, under a burst of creates. The healthy
// receiver gets every event while the hanging ones hold their places; their attempts time out and they are
// throttled down to one place each, which the delivery log and /metrics show, endpoint by endpoint. The dripping
// one has answered (its status decides): its deliveries succeed, each holding its place only while the body is
// read for the log, and neither it nor the healthy one is ever throttled.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { deliveriesWhen, LOOPBACK_WEBHOOKS, registerWebhook } from '../../helpers/webhooks.js'

const HANGING = 19
const EVENTS = 60
const ATTEMPT_TIMEOUT_MS = 1000
const PLACES_PER_ENDPOINT = 8

/** A receiver that answers 200 at once, then sends its body a byte at a time and never ends it. */
async function startDripping(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  let requests = 0
  const server: Server = createServer((request, response) => {
    requests++
    request.resume()
    response.writeHead(200, { 'content-type': 'text/plain' })
    const timer = setInterval(() => response.write('.'), 20)
    timers.add(timer)
    response.on('close', () => {
      clearInterval(timer)
      timers.delete(timer)
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/drip`,
    requests: () => requests,
    async close() {
      for (const timer of timers) clearInterval(timer)
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

describe(`fair delivery beside nineteen hanging receivers and a dripping one, on ${TEST_STORE}`, () => {
  let server: TestServer
  let healthy: WebhookReceiver
  const hanging: WebhookReceiver[] = []
  let dripping: Awaited<ReturnType<typeof startDripping>>

  before(async () => {
    server = await startTestServer({
      env: { ...LOOPBACK_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE: Array(8).fill('100ms').join(',') },
      // Shorter than the service's own, so that the hanging receivers time out many times in the test.
      tuning: {
        webhookAttemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
        webhookLeaseMs: 5000,
        webhookConcurrencyPerEndpoint: PLACES_PER_ENDPOINT,
        webhookConcurrency: 64,
      },
    })
    healthy = await WebhookReceiver.start()
    for (let index = 0; index < HANGING; index++) hanging.push(await WebhookReceiver.start({ answer: () => 'hang' }))
    dripping = await startDripping()
  })
  after(async () => {
    await server.close()
    await Promise.all([healthy.close(), dripping.close(), ...hanging.map((receiver) => receiver.close())])
  })

  const metricsText = async () => (await fetch(`${server.baseUrl}/metrics`)).text()
  /** The throttled endpoints' places, by endpoint id, as /metrics shows them. */
  const throttledPlaces = async () => {
    const places = new Map<number, number>()
    const line = /^petstore_webhook_endpoint_throttled_places\{endpoint="(\d+)",reason="timed_out"\} (\d+)$/gm
    for (const match of (await metricsText()).matchAll(line)) places.set(Number(match[1]), Number(match[2]))
    return places
  }

  it('delivers every event to the healthy receiver while the hanging ones are throttled to one place \
each, and the dripping one succeeds', async () => {
    const hangingIds: number[] = []
    for (const receiver of hanging)
      hangingIds.push((await registerWebhook(server, receiver, { types: ['pet.created'] })).id)
    const dripId = (await registerWebhook(server, undefined, { url: dripping.url, types: ['pet.created'] })).id
    const healthyId = (await registerWebhook(server, healthy, { types: ['pet.created'] })).id

    await Promise.all(
      Array.from({ length: 10 }, async (_, worker) => {
        for (let index = 0; index < EVENTS / 10; index++) {
          const response = await server.request('/v1/pets', {
            json: { name: `Fair ${worker}-${index}`, categoryId: 1 },
          })
          assert.equal(response.status, 201)
          await response.arrayBuffer()
        }
      }),
    )
    await healthy.until(() => healthy.ids().size === EVENTS)
    // The hanging receivers were being attempted meanwhile: each holds places, none ever answered.
    for (const receiver of hanging) assert.ok(receiver.received.length > 0)
    assert.ok(dripping.requests() > 0)

    // Each hanging endpoint's attempts time out, and its places halve each time, down to one.
    let places = await throttledPlaces()
    while (hangingIds.some((id) => places.get(id) !== 1)) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      places = await throttledPlaces()
    }
    assert.deepEqual(
      [...places.keys()].sort((a, b) => a - b),
      [...hangingIds].sort((a, b) => a - b),
    )
    assert.equal(places.has(healthyId), false)
    assert.equal(places.has(dripId), false)

    // The delivery log says why, attempt by attempt.
    for (const id of [hangingIds[0] ?? 0, hangingIds.at(-1) ?? 0]) {
      const log = await deliveriesWhen(server, id, (deliveries) =>
        deliveries.some((delivery) => delivery.attempts.some((attempt) => /gives it 1 of/.test(attempt.error ?? ''))),
      )
      const throttled = log
        .flatMap((delivery) => delivery.attempts)
        .find((attempt) => /gives it 1 of/.test(attempt.error ?? ''))
      assert.deepEqual(
        { outcome: throttled?.outcome, error: throttled?.error },
        {
          outcome: 'timed_out',
          error:
            `no answer within ${ATTEMPT_TIMEOUT_MS} ms; the endpoint's attempts time out, so this instance gives ` +
            `it 1 of its ${PLACES_PER_ENDPOINT} delivery places until it answers again`,
        },
      )
    }
    // The dripping endpoint's attempts succeeded with what arrived of the body, none timed out.
    const dripLog = await deliveriesWhen(server, dripId, (deliveries) =>
      deliveries.some((delivery) => delivery.status === 'succeeded'),
    )
    const dripAttempts = dripLog.flatMap((delivery) => delivery.attempts)
    assert.deepEqual(
      new Set(dripAttempts.map((attempt) => [attempt.outcome, attempt.responseStatus].join())),
      new Set(['succeeded,200']),
    )
    for (const attempt of dripAttempts) assert.match(attempt.responseBody ?? '', /^\.*$/)
    // The healthy endpoint's deliveries all succeeded (each ended by a success).
    const healthyLog = await deliveriesWhen(
      server,
      healthyId,
      (deliveries) => deliveries.length === EVENTS && deliveries.every((delivery) => delivery.status === 'succeeded'),
    )
    assert.deepEqual(new Set(healthyLog.map((delivery) => delivery.attempts.at(-1)?.outcome)), new Set(['succeeded']))
  })
})
