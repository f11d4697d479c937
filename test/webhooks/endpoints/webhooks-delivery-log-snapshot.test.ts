// The delivery log shows each delivery with its attempts as of one moment. An attempt recorded (its outcome logged,
// the delivery finished) while the log is being read must show either entirely or not at all: read in two
// statements, PostgreSQL could show the delivery still in progress beside the attempt that had already ended it.
// The commit is made here between the log's statements, by a plugin on the service's reads.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Kysely, KyselyPlugin, RootOperationNode } from 'kysely'
import type { Database } from '../../../src/db/database.js'
import { webhookId } from '../../../src/webhooks/signature.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { NO_NETWORK, registerWebhook } from '../../helpers/webhooks.js'

const CREATED = '2026-05-01T08:00:00.000Z'
const STARTED = '2026-05-01T08:00:01.000Z'
const FINISHED = '2026-05-01T08:00:01.250Z'

/** Runs `between` once, right after the first statement that reads webhook_deliveries has answered. */
function afterTheFirstDeliveriesRead(between: () => Promise<void>): KyselyPlugin {
  const readsDeliveries = new WeakSet<object>()
  let done = false
  return {
    transformQuery({ node, queryId }) {
      if (JSON.stringify(node satisfies RootOperationNode).includes('"webhook_deliveries"'))
        readsDeliveries.add(queryId)
      return node
    },
    async transformResult({ result, queryId }) {
      if (!done && readsDeliveries.has(queryId)) {
        done = true
        await between()
      }
      return result
    },
  }
}

describe(`the delivery log read while an attempt is recorded, on ${TEST_STORE}`, () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ webhookNetwork: NO_NETWORK })
  })
  after(() => server.close())

  it('shows the delivery and its attempts as they were at one moment', async () => {
    const webhook = await registerWebhook(server, undefined, { url: 'https://hooks.example/log' })
    const admin = server.store.admin
    const leaseEnds = Date.now() + 3_600_000
    // Its first attempt in progress, under a lease of another instance.
    const { id } = await admin
      .insertInto('webhook_deliveries')
      .values({
        endpoint_id: webhook.id,
        event_id: 7,
        status: 'pending',
        attempts: 1,
        due_at: leaseEnds,
        lease_token: 'another-instance',
        created_at: CREATED,
        finished_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    // The attempt succeeds, recorded as the deliverer records it: the outcome and the delivery in one transaction.
    const recordTheAttempt = () =>
      admin.transaction().execute(async (trx) => {
        await trx
          .insertInto('webhook_attempts')
          .values({
            delivery_id: id,
            attempt: 1,
            started_at: STARTED,
            duration_ms: 250,
            outcome: 'succeeded',
            response_status: 204,
            error: null,
            response_body: null,
          })
          .execute()
        await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'succeeded', due_at: null, lease_token: null, finished_at: FINISHED })
          .where('id', '=', id)
          .execute()
      })

    const read = server.store.read
    // The store's reads are a Kysely instance; the services see them only as a Reader.
    server.store.read = (read as Kysely<Database>).withPlugin(afterTheFirstDeliveriesRead(recordTheAttempt))
    let listed: Response
    try {
      listed = await server.request(`/v1/webhooks/${webhook.id}/deliveries`)
    } finally {
      server.store.read = read
    }
    assert.equal(listed.status, 200)
    // As it was before the attempt was recorded: in progress, nothing logged yet.
    assert.deepEqual(await listed.json(), [
      {
        id: Number(id),
        eventId: 7,
        webhookId: webhookId(7),
        status: 'pending',
        nextAttemptAt: null,
        createdAt: CREATED,
        finishedAt: null,
        attempts: [],
      },
    ])
    // And afterwards, as it is now.
    const now = await server.request(`/v1/webhooks/${webhook.id}/deliveries`)
    assert.equal(now.status, 200)
    assert.deepEqual(await now.json(), [
      {
        id: Number(id),
        eventId: 7,
        webhookId: webhookId(7),
        status: 'succeeded',
        nextAttemptAt: null,
        createdAt: CREATED,
        finishedAt: FINISHED,
        attempts: [
          {
            attempt: 1,
            startedAt: STARTED,
            durationMs: 250,
            outcome: 'succeeded',
            responseStatus: 204,
            error: null,
            responseBody: null,
          },
        ],
      },
    ])
  })
})
