// PostgreSQL: a registration and a change of an endpoint's status that both wait for the events' numbering must
// not deadlock: both number the events before they lock webhook_endpoints, so the locks are taken in one order.
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { NO_NETWORK, registerWebhook } from '../../helpers/webhooks.js'

describe('a registration beside a status change on postgres', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ webhookNetwork: NO_NETWORK })
  })
  after(() => server.close())

  it('ends both while the numbering of events keeps them waiting', async () => {
    const { id } = await registerWebhook(server, undefined, { url: 'https://hooks.example/first' })
    const waiting = async (count: number) => {
      for (let tries = 0; tries < 200; tries++) {
        const { rows } = await sql<{ n: string }>`select count(*) as n from pg_locks
          where locktype = 'advisory' and classid = 1163284052 and not granted`.execute(server.store.admin)
        if (Number(rows[0]?.n) >= count) return
        await sleep(25)
      }
      assert.fail(`${count} transactions never waited for the numbering`)
    }
    let patch: Promise<Response> | undefined
    let post: Promise<Response> | undefined
    await server.store.admin.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(1163284052, hashtext(current_schema()))`.execute(trx)
      patch = server.request(`/v1/webhooks/${id}`, { method: 'PATCH', json: { status: 'disabled' } })
      await waiting(1)
      post = server.request('/v1/webhooks', { json: { url: 'https://hooks.example/second' } })
      await waiting(2)
    })
    const [patched, posted] = await Promise.all([patch, post])
    assert.equal(patched?.status, 200, await patched?.clone().text())
    assert.equal(posted?.status, 201, await posted?.clone().text())
    await patched?.arrayBuffer()
    await posted?.arrayBuffer()
  })
})
