// The deployed nginx (deploy/nginx/petstore.conf.template) names the client's own address in X-Forwarded-For,
// not what the client wrote there. It used to append the address to the client's header, so that behind
// TRUST_PROXY=uniquelocal (compose.yaml) a client on a private network, or one reaching the published port through
// Docker's gateway, was counted by whatever address it wrote, a new one per request, and escaped the anonymous quota.
// Here nginx and its client are on loopback, the range the instance trusts, as they are in one private range there.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startNginx, nginxAvailable, NGINX_BINARY, type Nginx } from '../helpers/nginx.js'
import { spawnServer, type ServerProcess } from '../helpers/process.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const skip =
  !nginxAvailable() && !process.env.CI
    ? `nginx is not installed (${NGINX_BINARY}); install it with: apt-get install nginx`
    : false

describe(`X-Forwarded-For behind the deployed nginx, on ${TEST_STORE}`, { skip }, () => {
  let database: TestDatabase
  let instance: ServerProcess
  let nginx: Nginx

  before(async () => {
    database = await createTestDatabase()
    instance = await spawnServer({ DATABASE_URL: database.url, TRUST_PROXY: 'loopback', RATE_LIMIT_ANONYMOUS: '2' })
    const host = new URL(instance.baseUrl).host
    nginx = await startNginx([host, host])
  })

  after(async () => {
    await nginx?.stop()
    instance?.child.kill('SIGTERM')
    assert.equal(await instance?.exited, 0)
    await database?.drop()
  })

  it('counts a client by its address, whatever X-Forwarded-For it sends', async () => {
    const statuses: number[] = []
    for (let index = 1; index <= 3; index++) {
      const response = await fetch(`${nginx.baseUrl}/v1/pets`, {
        headers: { 'x-forwarded-for': `203.0.113.${index}` },
      })
      await response.arrayBuffer()
      statuses.push(response.status)
    }
    assert.deepEqual(statuses, [401, 401, 429])
  })
})
