// Rate limits shared through Redis (REDIS_URL): two instances on one database and one Redis admit exactly
// the quota between them; when Redis fails (cut, or a black hole), the service keeps answering without limits
// (fail-open, documented) and applies them again by itself once Redis is back.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { issueApiKey } from '../../../src/keys/issue-key.js'
import { freePort } from '../../helpers/process.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../../helpers/store.js'
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js'

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const WRONG_KEY = 'pst_wrongwrongwrongwrongwrongwrongwrongwrong1'

async function redisAnswers(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: () => null,
  })
  probe.on('error', () => {})
  try {
    await probe.connect()
    return (await probe.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    probe.disconnect()
  }
}

const available = await redisAnswers()
const skip =
  !available && !process.env.CI
    ? `Redis does not answer at ${REDIS_URL}; start one (redis-server --port 6379) or set TEST_REDIS_URL`
    : false

/** Counters of this run only: the same Redis serves every test file, and both passes of npm test. */
const namespace = () => `petstore-test:${randomBytes(6).toString('hex')}`

async function timed(request: () => Promise<Response>): Promise<{ response: Response; ms: number }> {
  const started = performance.now()
  const response = await request()
  await response.arrayBuffer()
  return { response, ms: performance.now() - started }
}

describe('two instances sharing one Redis', { skip }, () => {
  let database: TestDatabase
  let instances: [TestServer, TestServer]
  let redis: Redis
  const ns = namespace()

  before(async () => {
    assert.ok(available, `Redis is required in CI: nothing answers at ${REDIS_URL}`)
    database = await createTestDatabase()
    const env = { REDIS_URL, RATE_LIMIT_NAMESPACE: ns, RATE_LIMIT_PER_KEY: '10', RATE_LIMIT_ANONYMOUS: '4' }
    instances = [await startTestServer({ database, env }), await startTestServer({ database, env })]
    redis = new Redis(REDIS_URL)
  })
  after(async () => {
    for (const instance of instances ?? []) await instance.close()
    await database?.drop()
    redis?.disconnect()
  })

  it('admits exactly the quota of a key across both instances, however the requests are spread', async () => {
    const { key, row } = await issueApiKey(instances[0].store, 'shared quota')
    const responses = await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        const response = await instances[index % 2 === 0 ? 0 : 1].request('/v1/pets', { auth: key })
        await response.arrayBuffer()
        return response
      }),
    )
    const admitted = responses.filter((response) => response.status === 200)
    assert.equal(admitted.length, 10)
    assert.equal(responses.filter((response) => response.status === 429).length, 20)
    // Each admitted request drew one distinct unit of the one shared counter.
    const remaining = admitted
      .map((response) => Number(/;r=(\d+);/.exec(response.headers.get('ratelimit') ?? '')?.[1]))
      .sort((a, b) => a - b)
    assert.deepEqual(remaining, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    for (const response of responses) assert.equal(response.headers.get('ratelimit-policy'), '"default";q=10;w=60')
    // Both instances answered 429s: the quota is not per instance.
    for (const instance of [0, 1])
      assert.ok(responses.some((response, index) => index % 2 === instance && response.status === 429))

    assert.equal(await redis.get(`${ns}:key:${row.id}`), '30')
    const ttl = await redis.pttl(`${ns}:key:${row.id}`)
    assert.ok(ttl > 50_000 && ttl <= 60_000, String(ttl))
  })

  it('shares the per-address quota of requests without a valid key', async () => {
    for (let request = 0; request < 4; request++) {
      const response = await instances[request % 2 === 0 ? 0 : 1].request('/v1/pets', { auth: WRONG_KEY })
      assert.equal(response.status, 401)
      await response.arrayBuffer()
      assert.equal(response.headers.get('ratelimit')?.replace(/;t=\d+$/, ''), `"default";r=${3 - request}`)
    }
    for (const instance of instances) {
      const refused = await instance.request('/v1/pets', { auth: WRONG_KEY })
      assert.equal(refused.status, 429)
      assert.equal(((await refused.json()) as { code: string }).code, 'rate_limited')
    }
  })
})

describe('fail-open when Redis fails, and recovery', { skip }, () => {
  let proxy: TcpProxy
  let server: TestServer
  let key: string

  before(async () => {
    const { hostname, port } = new URL(REDIS_URL)
    proxy = await startTcpProxy({ host: hostname, port: Number(port || 6379) })
    server = await startTestServer({
      env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, RATE_LIMIT_NAMESPACE: namespace(), RATE_LIMIT_PER_KEY: '3' },
    })
    key = (await issueApiKey(server.store, 'outage')).key
  })
  after(async () => {
    await server?.close()
    await proxy?.close()
  })

  const call = () => server.request('/v1/pets', { auth: key })

  /** Requests until one is refused with 429 (the limit applies again); returns how long that took. */
  async function untilLimited(): Promise<number> {
    const started = performance.now()
    for (;;) {
      const { response } = await timed(call)
      if (response.status === 429) return performance.now() - started
      assert.equal(response.status, 200)
      assert.ok(performance.now() - started < 10_000, 'the limit did not apply again within 10 s of Redis coming back')
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  it('counts in Redis while it answers', async () => {
    for (let request = 0; request < 3; request++) assert.equal((await timed(call)).response.status, 200)
    assert.equal((await timed(call)).response.status, 429)
  })

  it('answers every request at once while Redis refuses connections, without RateLimit headers; limits again once it \
is back', async (t) => {
    await proxy.cut()
    const durations: number[] = []
    for (let request = 0; request < 20; request++) {
      const { response, ms } = await timed(call)
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('ratelimit'), null)
      assert.equal(response.headers.get('ratelimit-policy'), null)
      durations.push(ms)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    durations.sort((a, b) => a - b)
    t.diagnostic(
      `Redis cut: request time median ${durations[10]?.toFixed(1)} ms, max ${durations.at(-1)?.toFixed(1)} ms`,
    )
    assert.ok((durations.at(-1) ?? Infinity) < 500, `slowest request took ${durations.at(-1)} ms`)
    // One line per outage, not one per request.
    const failures = server.logs.filter((line) => line.includes('the rate-limit store failed'))
    assert.equal(failures.length, 1, failures.join(''))

    await proxy.restore()
    t.diagnostic(`limits applied again ${(await untilLimited()).toFixed(0)} ms after Redis came back`)
    assert.equal(server.logs.filter((line) => line.includes('the rate-limit store answers again')).length, 1)
  })

  it('answers within the command time-out while Redis is a black hole; limits again once it is back', async (t) => {
    proxy.stall()
    const durations: number[] = []
    for (let request = 0; request < 10; request++) {
      const { response, ms } = await timed(call)
      assert.equal(response.status, 200)
      durations.push(ms)
      await new Promise((resolve) => setTimeout(resolve, 300))
    }
    durations.sort((a, b) => a - b)
    t.diagnostic(
      `Redis silent: request time median ${durations[5]?.toFixed(1)} ms, max ${durations.at(-1)?.toFixed(1)} ms`,
    )
    // At most the 250 ms command time-out, paid by at most one request a second.
    assert.ok((durations.at(-1) ?? Infinity) < 1000, `slowest request took ${durations.at(-1)} ms`)

    await proxy.restore()
    t.diagnostic(`limits applied again ${(await untilLimited()).toFixed(0)} ms after Redis came back`)
    assert.equal(server.logs.filter((line) => line.includes('the rate-limit store failed')).length, 2)
    assert.equal(server.logs.filter((line) => line.includes('the rate-limit store answers again')).length, 2)
  })

  it('names a Redis that was down at start and comes back refusing the credentials', async () => {
    const later = await startTcpProxy({
      host: new URL(REDIS_URL).hostname,
      port: Number(new URL(REDIS_URL).port || 6379),
    })
    await later.cut()
    const refused = await startTestServer({
      env: { REDIS_URL: `redis://nobody:not-the-password@127.0.0.1:${later.port}`, LOG_LEVEL: 'warn' },
    })
    try {
      await later.restore()
      const named = async () => {
        for (let attempt = 0; attempt < 100; attempt++) {
          const line = refused.logs.find((candidate) => candidate.includes('WRONGPASS'))
          if (line) return line
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        return undefined
      }
      const line = await named()
      assert.ok(line, refused.logs.join(''))
      assert.equal(JSON.parse(line).msg, 'redis still fails, now otherwise; retrying in the background')
      assert.equal(refused.logs.filter((candidate) => candidate.includes('ECONNREFUSED')).length, 1)
      assert.ok(!refused.logs.join('').includes('not-the-password'), 'the password is never logged')
      assert.equal((await refused.request('/v1/pets')).status, 200)
    } finally {
      await refused.close()
      await later.close()
    }
  })

  it('starts and answers while Redis cannot be reached at all', async () => {
    const nowhere = await startTestServer({
      env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, LOG_LEVEL: 'warn' },
    })
    try {
      const { response, ms } = await timed(() => nowhere.request('/v1/pets'))
      assert.equal(response.status, 200)
      assert.ok(ms < 500, `${ms} ms`)
    } finally {
      await nowhere.close()
    }
  })
})

describe('a Redis that refuses the database REDIS_URL names', { skip }, () => {
  it('admits without limits and says so, rather than counting in database 0', async () => {
    const ns = namespace()
    const wrong = new URL(REDIS_URL)
    // Beyond the `databases` of any Redis configured for this: SELECT answers "ERR DB index is out of range".
    wrong.pathname = '/1000000'
    const server = await startTestServer({
      env: { REDIS_URL: wrong.href, RATE_LIMIT_NAMESPACE: ns, RATE_LIMIT_PER_KEY: '3', LOG_LEVEL: 'warn' },
    })
    const databaseZero = new URL(REDIS_URL)
    databaseZero.pathname = '/0'
    const redis = new Redis(databaseZero.href)
    try {
      const { key } = await issueApiKey(server.store, 'wrong database')
      for (let request = 0; request < 6; request++) {
        const response = await server.request('/v1/pets', { auth: key })
        assert.equal(response.status, 200)
        assert.equal(response.headers.get('ratelimit'), null)
        assert.equal(response.headers.get('ratelimit-policy'), null)
        await response.arrayBuffer()
      }
      const refusals = server.logs
        .map((line) => JSON.parse(line) as { msg: string; err?: { message: string } })
        .filter((line) => line.msg.startsWith('redis refuses the database REDIS_URL names'))
      assert.ok(refusals.length >= 1, server.logs.join(''))
      assert.deepEqual(refusals[0], {
        ...refusals[0],
        msg:
          'redis refuses the database REDIS_URL names; requests are admitted without rate limits until it ' +
          'accepts it',
        err: { ...refusals[0]?.err, message: 'ERR DB index is out of range' },
      })
      assert.equal(server.logs.filter((line) => line.includes('redis is reachable again')).length, 0)
      assert.deepEqual(await redis.keys(`${ns}:*`), [])
    } finally {
      redis.disconnect()
      await server.close()
    }
  })
})
