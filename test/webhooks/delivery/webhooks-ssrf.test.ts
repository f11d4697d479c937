// The outbound guard at delivery time, switched on as in production, on the store of the pass. The test's network
// stands in for the world: a resolver stub answers for made-up host names, and connections are led to loopback
// listeners, so that the test connects only to loopback. A listener that must never be reached counts its
// connections: every case ends with zero.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import type { ResolvedAddress, WebhookNetwork } from '../../../src/webhooks/delivery/outbound-http.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { connectionCounter } from '../../helpers/webhook-receiver.js'
import { deliveriesWhen, failedDelivery, QUICK_WEBHOOKS, registerWebhook } from '../../helpers/webhooks.js'

/** A public address (example.com's): the stub says so, and the test's connection goes to loopback instead. */
const PUBLIC = '93.184.215.14'

describe(`webhook destinations checked at each attempt, guard on, on ${TEST_STORE}`, () => {
  let server: TestServer
  let forbidden: Awaited<ReturnType<typeof connectionCounter>>
  let redirector: Server
  const lookups: string[] = []
  const answers = new Map<string, ResolvedAddress[]>()

  const network: WebhookNetwork = {
    async resolve(hostname) {
      lookups.push(hostname)
      const found = answers.get(hostname)
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
      return found
    },
    // Only the redirector stands for a public host; any other connection lands on the counting listener.
    connect: ({ host }) =>
      connect({
        host: '127.0.0.1',
        port: host === 'redirector.example' ? (redirector.address() as AddressInfo).port : forbidden.port,
      }),
  }

  before(async () => {
    forbidden = await connectionCounter()
    redirector = createServer((request, response) => {
      request.resume()
      const location =
        request.url === '/to-localhost'
          ? `http://localhost:${forbidden.port}/`
          : `http://127.0.0.1:${forbidden.port}/admin`
      response.writeHead(request.url === '/to-localhost' ? 307 : 302, { location }).end()
    })
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve))
    server = await startTestServer({
      env: { WEBHOOK_RETRY_SCHEDULE: '50ms' },
      tuning: QUICK_WEBHOOKS,
      webhookNetwork: network,
    })
  })
  after(async () => {
    await server.close()
    redirector.closeAllConnections()
    await new Promise((resolve) => redirector.close(resolve))
    await forbidden.close()
  })

  it('never connects to a host name that resolves to loopback at delivery time, and asks the resolver \
at every attempt', async () => {
    answers.set('rebinding.example', [{ address: '127.0.0.1', family: 4 }])
    const before = lookups.length
    const delivery = await failedDelivery(server, `http://rebinding.example:${forbidden.port}/hook`)
    const refused = {
      outcome: 'destination_refused',
      responseStatus: null,
      responseBody: null,
      error:
        'rebinding.example resolves to 127.0.0.1, a loopback address; webhooks are delivered only to public addresses',
    }
    assert.deepEqual(
      delivery.attempts.map(({ outcome, responseStatus, responseBody, error }) => ({
        outcome,
        responseStatus,
        responseBody,
        error,
      })),
      [refused, refused],
    )
    assert.deepEqual(lookups.slice(before), ['rebinding.example', 'rebinding.example'])
    assert.equal(forbidden.connections(), 0)
  })

  it('refuses a name with any non-public address among its answers, and cloud metadata addresses', async () => {
    answers.set('mixed.example', [
      { address: PUBLIC, family: 4 },
      { address: '10.1.2.3', family: 4 },
    ])
    answers.set('metadata.example', [{ address: 'fd00:ec2::254', family: 6 }])
    const mixed = await failedDelivery(server, 'http://mixed.example/hook')
    assert.equal(
      mixed.attempts[0]?.error,
      'mixed.example resolves to 10.1.2.3, a private network address; webhooks are delivered only to public addresses',
    )
    const metadata = await failedDelivery(server, 'http://metadata.example/latest/meta-data/')
    assert.equal(
      metadata.attempts[0]?.error,
      'metadata.example resolves to fd00:ec2::254, a private network address; webhooks are delivered only to ' +
        'public addresses',
    )
    assert.equal(forbidden.connections(), 0)
  })

  it('refuses a literal loopback address stored before the guard was on', async () => {
    const webhook = await registerWebhook(server, undefined, {
      url: 'https://hooks.example.com/legacy',
      types: ['pet.created'],
    })
    await server.store.admin
      .updateTable('webhook_endpoints')
      .set({ url: `http://127.0.0.1:${forbidden.port}/` })
      .where('id', '=', webhook.id)
      .execute()
    assert.equal((await server.request('/v1/pets', { json: { name: 'Legacy', categoryId: 1 } })).status, 201)
    const [delivery] = await deliveriesWhen(
      server,
      webhook.id,
      (deliveries) => deliveries[0] !== undefined && deliveries[0].status !== 'pending',
    )
    assert.equal(
      delivery?.attempts[0]?.error,
      '127.0.0.1 is a loopback address; webhooks are delivered only to public addresses',
    )
    assert.equal(forbidden.connections(), 0)
  })

  it("does not follow a redirect to loopback: the 3xx is the attempt's answer", async () => {
    answers.set('redirector.example', [{ address: PUBLIC, family: 4 }])
    for (const [path, status] of [
      ['/to-loopback', 302],
      ['/to-localhost', 307],
    ] as const) {
      const delivery = await failedDelivery(server, `http://redirector.example${path}`)
      assert.deepEqual(
        delivery.attempts.map(({ outcome, responseStatus, error }) => ({ outcome, responseStatus, error })),
        Array(2).fill({
          outcome: 'unexpected_status',
          responseStatus: status,
          error: `the receiver answered ${status} (a redirect, which is not followed); only 2xx is success`,
        }),
      )
    }
    assert.equal(forbidden.connections(), 0)
  })

  it('reports a name that does not resolve as a network error', async () => {
    const delivery = await failedDelivery(server, 'http://nowhere.example/')
    assert.deepEqual(
      delivery.attempts.map(({ outcome, error }) => ({ outcome, error })),
      Array(2).fill({ outcome: 'network_error', error: 'getaddrinfo ENOTFOUND nowhere.example' }),
    )
    assert.equal(forbidden.connections(), 0)
  })
})
