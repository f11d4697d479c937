// `petstore webhooks list|deliveries`, run as an operator runs them, against the database of a running server
// that delivers to loopback receivers: what is listed, tab-separated, and that no secret is ever printed.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { runCli } from '../helpers/process.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { TEST_STORE } from '../helpers/store.js'
import { WebhookReceiver } from '../helpers/webhook-receiver.js'
import { deliveriesWhen, LOOPBACK_WEBHOOKS, QUICK_WEBHOOKS, registerWebhook } from '../helpers/webhooks.js'
import type { Delivery, Webhook } from '../helpers/webhooks.js'

describe(`petstore webhooks on ${TEST_STORE}`, () => {
  let server: TestServer
  const receivers: WebhookReceiver[] = []
  const webhooks: (Webhook & { secret: string })[] = []
  let failed: Delivery[] = []
  let inProgress: Delivery[] = []
  const petstore = (args: string[]) =>
    runCli(args, {
      DATABASE_URL:
        server.config.database.kind === 'postgres' ? server.config.database.url : `file:${server.config.database.path}`,
    })

  before(async () => {
    // The stuck receiver's attempts must stay in progress for the whole suite, however slowly the CLI starts: the
    // attempt time-out (and so the lease) is far longer than the suite, and shutdown does not wait for them.
    server = await startTestServer({
      env: { ...LOOPBACK_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE: 'none' },
      tuning: {
        ...QUICK_WEBHOOKS,
        webhookAttemptTimeoutMs: 120_000,
        webhookLeaseMs: 300_000,
        webhookShutdownWaitMs: 0,
      },
    })
    const healthy = await WebhookReceiver.start()
    const down = await WebhookReceiver.start({ answer: () => ({ status: 503, body: 'maintenance' }) })
    const stuck = await WebhookReceiver.start({ answer: () => 'hang' })
    receivers.push(healthy, down, stuck)
    webhooks.push(await registerWebhook(server, healthy, {}))
    webhooks.push(
      await registerWebhook(server, down, { types: ['pet.created', 'order.placed'], description: 'Partner CRM' }),
    )
    webhooks.push(await registerWebhook(server, stuck, { types: ['pet.created'] }))
    for (const name of ['Rex', 'Tom'])
      assert.equal((await server.request('/v1/pets', { json: { name, categoryId: 1 } })).status, 201)
    await deliveriesWhen(
      server,
      webhooks[0]?.id ?? 0,
      (deliveries) => deliveries.length === 2 && deliveries.every((delivery) => delivery.status === 'succeeded'),
    )
    failed = await deliveriesWhen(
      server,
      webhooks[1]?.id ?? 0,
      (deliveries) => deliveries.length === 2 && deliveries.every((delivery) => delivery.status === 'failed'),
    )
    await stuck.until(() => stuck.open === 2)
    inProgress = await deliveriesWhen(server, webhooks[2]?.id ?? 0, (deliveries) => deliveries.length === 2)
  })
  after(async () => {
    await server.close()
    await Promise.all(receivers.map((receiver) => receiver.close()))
  })

  it('lists every endpoint with its pending and failed deliveries, never a secret', async () => {
    const result = await petstore(['webhooks', 'list'])
    assert.equal(result.code, 0, result.stderr)
    const [all, partner, stuck] = webhooks
    assert.ok(all && partner && stuck)
    assert.equal(
      result.stdout,
      [
        'id\turl\ttypes\tstatus\tdescription\tcreated\tpending\tfailed',
        `${all.id}\t${all.url}\tall\tenabled\t\t${all.createdAt}\t0\t0`,
        `${partner.id}\t${partner.url}\tpet.created,order.placed\tenabled\tPartner CRM\t${partner.createdAt}\t0\t2`,
        `${stuck.id}\t${stuck.url}\tpet.created\tenabled\t\t${stuck.createdAt}\t2\t0`,
        '',
      ].join('\n'),
    )
    for (const webhook of webhooks)
      assert.ok(!(result.stdout + result.stderr).includes(webhook.secret.slice('whsec_'.length)))
  })

  it("lists an endpoint's newest deliveries with their last attempt; --limit takes fewer", async () => {
    const result = await petstore(['webhooks', 'deliveries', String(webhooks[1]?.id)])
    assert.equal(result.code, 0, result.stderr)
    assert.equal(
      result.stdout,
      [
        'id\tevent\tstatus\tattempts\tlast outcome\tlast response\tnext attempt\tlast error',
        ...failed.map(
          (delivery) =>
            `${delivery.id}\t${delivery.eventId}\tfailed\t1\tunexpected_status\t503\t-\tthe receiver answered ` +
            '503; only 2xx is success',
        ),
        '',
      ].join('\n'),
    )
    const limited = await petstore(['webhooks', 'deliveries', String(webhooks[2]?.id), '--limit', '1'])
    assert.equal(limited.code, 0, limited.stderr)
    assert.deepEqual(limited.stdout.split('\n').slice(1), [
      `${inProgress[0]?.id}\t${inProgress[0]?.eventId}\tpending\t0\t-\t-\tin progress\t`,
      '',
    ])
  })

  it('fails with exit 1 for an unknown endpoint, and 2 for a bad id or limit', async () => {
    const unknown = await petstore(['webhooks', 'deliveries', '987654'])
    assert.deepEqual(
      { code: unknown.code, stdout: unknown.stdout, last: unknown.stderr.trim().split('\n').at(-1) },
      { code: 1, stdout: '', last: 'petstore: No webhook endpoint has id 987654.' },
    )
    const badId = await petstore(['webhooks', 'deliveries', 'first'])
    assert.equal(badId.code, 2)
    assert.match(
      badId.stderr,
      new RegExp(
        /^petstore: webhooks deliveries needs an endpoint id \(a positive integer\), not "first"\n/.source +
          /Usage: petstore webhooks deliveries ID \[--limit N\]\n/.source,
      ),
    )
    const badLimit = await petstore(['webhooks', 'deliveries', '1', '--limit', '5000'])
    assert.equal(badLimit.code, 2)
    assert.match(badLimit.stderr, /^petstore: webhooks deliveries: --limit takes a number from 1 to 1000, not "5000"\n/)
  })
})
