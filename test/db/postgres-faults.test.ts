// PostgreSQL going away in the middle of traffic: requests answer 503 `unavailable` quickly (nothing hangs,
// nothing answers 500), /readyz says so, and the service recovers by itself when the database returns.
// The outage is made with a TCP proxy between the service and PostgreSQL, so other test files keep theirs.
import assert from 'node:assert/strict'
import { after, before, describe, it, type TestContext } from 'node:test'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { collectPages } from '../helpers/link.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'
import { issueApiKey } from '../../src/keys/issue-key.js'

// Generous: a request that has not answered by then has hung. The figures are reported, not asserted.
const HANG_MS = 6000

describe('PostgreSQL outages', () => {
  let database: TestDatabase
  let proxy: TcpProxy
  let server: TestServer
  let storedKey: string

  before(async () => {
    database = await createTestDatabase('postgres')
    const direct = new URL(database.url)
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
    const viaProxy = new URL(database.url)
    viaProxy.port = String(proxy.port)
    server = await startTestServer({
      database: { url: viaProxy.toString(), drop: async () => {} },
      // The production statement time-out: a stalled database is given up after it (503), well within HANG_MS.
      env: { DATABASE_STATEMENT_TIMEOUT_MS: '1500' },
    })
    storedKey = (await issueApiKey(server.store, 'outage')).key
  })
  after(async () => {
    await server.close()
    await proxy.close()
    await database.drop()
  })

  async function timed(t: TestContext, label: string, path: string, init: Parameters<TestServer['request']>[1] = {}) {
    const started = performance.now()
    const response = await server.request(path, { ...init, signal: AbortSignal.timeout(HANG_MS) })
    t.diagnostic(`${label}: ${response.status} in ${Math.round(performance.now() - started)} ms`)
    return response
  }

  async function assertUnavailable(response: Response): Promise<void> {
    assert.equal(response.status, 503)
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
    const body = await response.json()
    assert.equal(body.code, 'unavailable')
    assert.equal(body.status, 503)
    assert.equal(typeof body.message, 'string')
    assert.ok(response.headers.get('x-request-id'))
  }

  async function waitUntilReady(): Promise<void> {
    const deadline = Date.now() + 15_000
    for (;;) {
      const response = await server.request('/readyz', { auth: false, signal: AbortSignal.timeout(HANG_MS) })
      if (response.status === 200) return
      assert.ok(Date.now() < deadline, 'the service did not recover after the database came back')
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  for (const outage of ['stopped', 'unreachable'] as const) {
    it(`answers 503 while the database is ${outage}, and recovers without a restart`, async (t) => {
      const before = await (
        await server.request('/v1/pets', { json: { name: `before-${outage}`, categoryId: 1 } })
      ).json()
      assert.equal((await timed(t, 'readyz before', '/readyz', { auth: false })).status, 200)

      if (outage === 'stopped') await proxy.cut()
      else proxy.stall()

      await assertUnavailable(await timed(t, 'list', '/v1/pets'))
      await assertUnavailable(await timed(t, 'create', '/v1/pets', { json: { name: 'during', categoryId: 1 } }))
      await assertUnavailable(await timed(t, 'get', `/v1/pets/${before.id}`))
      // A stored key cannot be checked now: the answer is 503, not a misleading 401.
      await assertUnavailable(await timed(t, 'stored key', '/v1/pets', { auth: storedKey }))
      await assertUnavailable(await timed(t, 'readyz', '/readyz', { auth: false }))
      // The process itself is fine.
      assert.equal((await timed(t, 'healthz', '/healthz', { auth: false })).status, 200)

      await proxy.restore()
      await waitUntilReady()
      const after = await server.request('/v1/pets', { json: { name: `after-${outage}`, categoryId: 1 } })
      assert.equal(after.status, 201)
      const listed: { id: number; name: string }[] = await (await server.request('/v1/pets?limit=100')).json()
      assert.ok(listed.some((pet) => pet.id === before.id))
      assert.equal(listed.filter((pet) => pet.name === 'during').length, 0)
      assert.equal((await server.request('/v1/pets?limit=1', { auth: storedKey })).status, 200)
    })
  }

  it('keeps every acknowledged create and answers only 201 or 503 when the database drops mid-traffic', async () => {
    const acknowledged: { id: number; name: string }[] = []
    const statuses = new Map<number, number>()
    let running = true
    const clients = Array.from({ length: 8 }, async (_, client) => {
      for (let index = 0; running; index++) {
        const response = await server.request('/v1/pets', {
          json: { name: `traffic-${client}-${index}`, categoryId: 2 },
          signal: AbortSignal.timeout(HANG_MS),
        })
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
        if (response.status === 201) acknowledged.push(await response.json())
        else await assertUnavailable(response)
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    await proxy.cut()
    await new Promise((resolve) => setTimeout(resolve, 500))
    await proxy.restore()
    await waitUntilReady()
    await new Promise((resolve) => setTimeout(resolve, 300))
    running = false
    await Promise.all(clients)

    assert.deepEqual([...statuses.keys()].sort(), [201, 503])
    const stored = new Set(
      (await collectPages<{ id: number }>((path) => server.request(path), '/v1/pets?limit=100')).map((pet) => pet.id),
    )
    for (const pet of acknowledged) assert.ok(stored.has(pet.id), `acknowledged pet ${pet.id} is missing`)
  })
})
