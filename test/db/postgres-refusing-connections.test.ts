// A database that refuses new connections (ALTER DATABASE … ALLOW_CONNECTIONS false, as an operator does
// before maintenance; PostgreSQL answers SQLSTATE 55000): requests answer 503 `unavailable`, not 500, and the
// service recovers by itself once connections are allowed again. In a database of its own, so that other test
// files keep theirs.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { runOnPostgresServer } from '../helpers/store.js'

describe('a PostgreSQL database that refuses new connections', () => {
  const name = `petstore_refusing_${randomBytes(6).toString('hex')}`
  const serverUrl = process.env.TEST_DATABASE_URL ?? ''
  const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString()
  let server: TestServer

  const admin = (text: string) => runOnPostgresServer(text, serverUrl)
  const allowConnections = (allowed: boolean) => admin(`alter database ${name} allow_connections ${allowed}`)

  before(async () => {
    assert.ok(serverUrl, 'TEST_DATABASE_URL is set')
    await admin(`create database ${name}`)
    server = await startTestServer({ database: { url: databaseUrl, drop: async () => {} } })
  })
  after(async () => {
    await server.close()
    await allowConnections(true)
    await admin(`drop database if exists ${name} with (force)`)
  })

  it('answers 503 unavailable while it refuses them, and serves again once they are allowed', async () => {
    const created = await server.request('/v1/pets', { json: { name: 'Before', categoryId: 1 } })
    assert.equal(created.status, 201)

    await allowConnections(false)
    await admin(`select pg_terminate_backend(pid, 5000) from pg_stat_activity where datname = '${name}'`)
    for (const [path, init] of [
      ['/v1/pets', { json: { name: 'During', categoryId: 1 } }],
      ['/v1/pets/1', {}],
      ['/v1/store/orders?limit=5', {}],
    ] as const) {
      const response = await server.request(path, init)
      assert.equal(response.status, 503, `${path}: ${await response.clone().text()}`)
      const body = (await response.json()) as { code: string; status: number }
      assert.deepEqual([body.code, body.status], ['unavailable', 503])
    }

    await allowConnections(true)
    const deadline = Date.now() + 15_000
    let status = 0
    while (status !== 201 && Date.now() < deadline) {
      status = (await server.request('/v1/pets', { json: { name: 'After', categoryId: 1 } })).status
      if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 200))
    }
    assert.equal(status, 201)
  })
})
