// Two instances of the service on one database (the SQLite file, or PostgreSQL in the PostgreSQL pass)
// behind Debian's nginx as a round-robin load balancer, driven as clients would drive them.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startNginx, nginxAvailable, NGINX_BINARY, type Nginx } from '../helpers/nginx.js'
import { runCli, spawnServer, type ServerProcess } from '../helpers/process.js'
import { collectPages } from '../helpers/link.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const STATIC_KEY = 'multi-instance-static-key-0123'
interface Pet {
  id: number
  name: string
  categoryId: number
  status: string
}

const skip =
  !nginxAvailable() && !process.env.CI
    ? `nginx is not installed (${NGINX_BINARY}); install it with: apt-get install nginx`
    : false

describe(`two instances behind nginx on one ${TEST_STORE} database`, { skip }, () => {
  let database: TestDatabase
  let instances: ServerProcess[] = []
  let nginx: Nginx
  let env: Record<string, string>

  const call = (baseUrl: string, path: string, init: RequestInit & { key?: string } = {}) =>
    fetch(baseUrl + path, {
      ...init,
      headers: {
        authorization: `Bearer ${init.key ?? STATIC_KEY}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    })

  before(async () => {
    assert.ok(nginxAvailable(), `nginx is required in CI: ${NGINX_BINARY} is missing`)
    database = await createTestDatabase()
    env = { DATABASE_URL: database.url, PETSTORE_API_KEYS: STATIC_KEY }
    // Migrations run once, before the instances start, as in production.
    const migrated = await runCli(['migrate'], env)
    assert.equal(migrated.code, 0, migrated.stderr)
    instances = await Promise.all([
      spawnServer({ ...env, MIGRATE_ON_START: 'false' }),
      spawnServer({ ...env, MIGRATE_ON_START: 'false' }),
    ])
    const [first, second] = instances.map((instance) => new URL(instance.baseUrl).host)
    nginx = await startNginx([first ?? '', second ?? ''])
  })

  after(async () => {
    await nginx?.stop()
    for (const instance of instances) {
      instance.child.kill('SIGTERM')
      assert.equal(await instance.exited, 0)
    }
    await database?.drop()
  })

  it('spreads requests over both instances', async () => {
    for (let index = 0; index < 4; index++) assert.equal((await call(nginx.baseUrl, '/v1/pets?limit=1')).status, 200)
    for (const instance of instances) {
      const metrics = await (await fetch(`${instance.baseUrl}/metrics`)).text()
      assert.match(metrics, /http_requests_total\{method="GET",route="\/v1\/pets",status_code="200"\} [1-9]/)
    }
  })

  it('gives concurrent creates unique ids, and every acknowledged pet is visible on both instances', async () => {
    const created: Pet[] = []
    await Promise.all(
      Array.from({ length: 10 }, async (_, client) => {
        for (let index = 0; index < 20; index++) {
          const response = await call(nginx.baseUrl, '/v1/pets', {
            method: 'POST',
            body: JSON.stringify({ name: `c${client}-${index}`, categoryId: client + 1 }),
          })
          assert.equal(response.status, 201)
          created.push(await response.json())
        }
      }),
    )
    assert.equal(new Set(created.map((pet) => pet.id)).size, 200)
    for (const instance of instances) {
      const pets = await collectPages<Pet>((path) => call(instance.baseUrl, path), '/v1/pets?limit=100')
      const seen = new Map(pets.map((pet) => [pet.id, pet]))
      for (const pet of created) assert.deepEqual(seen.get(pet.id), pet)
    }
  })

  it('paginates through the balancer completely and without duplicates while writes continue', async () => {
    const before = await collectPages<Pet>((path) => call(nginx.baseUrl, path), '/v1/pets?limit=100')

    let writing = true
    const writers = Array.from({ length: 4 }, async (_, client) => {
      let count = 0
      while (writing) {
        const response = await call(nginx.baseUrl, '/v1/pets', {
          method: 'POST',
          body: JSON.stringify({ name: `during-${client}-${count++}`, categoryId: 1 }),
        })
        assert.equal(response.status, 201)
      }
      return count
    })
    const walked: Pet[] = []
    // Walked by hand, with a bound: writers keep adding pets ahead of this walk.
    let path: string | undefined = '/v1/pets?limit=7'
    while (path) {
      const response = await call(nginx.baseUrl, path)
      assert.equal(response.status, 200)
      walked.push(...((await response.json()) as Pet[]))
      path = /^<[^>]*(\/v1\/pets\?[^>]+)>/.exec(response.headers.get('link') ?? '')?.[1]
      if (walked.length > before.length + 2000) break
    }
    writing = false
    const written = (await Promise.all(writers)).reduce((sum, count) => sum + count, 0)
    assert.ok(written > 0)

    const ids = walked.map((pet) => pet.id)
    assert.equal(new Set(ids).size, ids.length, 'a pet appeared twice')
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    )
    assert.deepEqual(walked.slice(0, before.length), before, 'a pet that existed before the walk is missing')
  })

  it('accepts a key created with the CLI on both instances, and refuses it on both once revoked', async () => {
    const created = await runCli(['keys', 'create', '--name', 'shared'], env)
    assert.equal(created.code, 0, created.stderr)
    const key = /(pst_[A-Za-z0-9_-]+)/.exec(created.stdout)?.[1]
    const id = /Created key (\d+)/.exec(created.stdout)?.[1]
    assert.ok(key && id, created.stdout)
    for (const instance of instances)
      assert.equal((await call(instance.baseUrl, '/v1/pets?limit=1', { key })).status, 200)

    const revoked = await runCli(['keys', 'revoke', id], env)
    assert.equal(revoked.code, 0, revoked.stderr)
    // The documented bound is immediate (keys are looked up per request); allow a few seconds anyway.
    for (const instance of instances) {
      const deadline = Date.now() + 5000
      let status = 0
      while (Date.now() < deadline) {
        status = (await call(instance.baseUrl, '/v1/pets?limit=1', { key })).status
        if (status === 401) break
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.equal(status, 401)
    }
  })
})
