// At most MAX_WEBHOOK_ENDPOINTS endpoints, enabled or not: every event is sent to each, so the next registration is
// refused with 409 and the Error body, and nothing is stored, until one is deleted. Registrations at once cannot
// both take the last place (PostgreSQL runs them side by side; they are counted one at a time).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { MAX_WEBHOOK_ENDPOINTS } from '../../../src/webhooks/endpoints/webhook.service.js'
import { assertError } from '../../helpers/error-assert.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { NO_NETWORK, registerWebhook } from '../../helpers/webhooks.js'

const FULL = {
  status: 409,
  code: 'conflict',
  message:
    `There are already ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints, the most there may be: delete one before ` +
    'registering another. Nothing was changed.',
} as const

describe(`the number of webhook endpoints on ${TEST_STORE}`, () => {
  let server: TestServer
  const storedCount = async () =>
    (await server.store.admin.selectFrom('webhook_endpoints').select('id').execute()).length
  const register = (name: string) => server.request('/v1/webhooks', { json: { url: `https://hooks.example/${name}` } })

  before(async () => {
    // Endpoints here name hosts out there: nothing may ever be sent to them.
    server = await startTestServer({ webhookNetwork: NO_NETWORK })
  })
  after(() => server.close())

  it(`refuses one more than ${MAX_WEBHOOK_ENDPOINTS}, disabled ones counted, until one is deleted`, async () => {
    const ids: number[] = []
    for (let index = 0; index < MAX_WEBHOOK_ENDPOINTS; index++)
      ids.push((await registerWebhook(server, undefined, { url: `https://hooks.example/${index}` })).id)
    const disabled = await server.request(`/v1/webhooks/${ids[0]}`, {
      method: 'PATCH',
      json: { status: 'disabled' },
    })
    assert.equal(disabled.status, 200)
    await disabled.arrayBuffer()

    await assertError(await register('one-too-many'), FULL)
    assert.equal(await storedCount(), MAX_WEBHOOK_ENDPOINTS)

    const deleted = await server.request(`/v1/webhooks/${ids[0]}`, { method: 'DELETE' })
    assert.equal(deleted.status, 204)
    const again = await register('after-a-delete')
    assert.equal(again.status, 201, await again.clone().text())
    await again.arrayBuffer()
    assert.equal(await storedCount(), MAX_WEBHOOK_ENDPOINTS)
  })

  it('gives the last place to one of several registrations sent at once', async () => {
    const last = (await server.store.admin.selectFrom('webhook_endpoints').select('id').execute()).at(-1)?.id
    const deleted = await server.request(`/v1/webhooks/${last}`, { method: 'DELETE' })
    assert.equal(deleted.status, 204)
    const answers = await Promise.all(Array.from({ length: 6 }, (_, index) => register(`at-once-${index}`)))
    const statuses = answers.map((answer) => answer.status).sort()
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409])
    for (const answer of answers) {
      if (answer.status === 409) await assertError(answer, FULL)
      else await answer.arrayBuffer()
    }
    assert.equal(await storedCount(), MAX_WEBHOOK_ENDPOINTS)
  })
})
