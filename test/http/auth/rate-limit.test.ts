// Rate limits on one instance (counters in memory), over real HTTP: a quota per API key, a smaller one per
// client address for requests without a valid key, the IETF draft headers on every API response, 429 with the
// Error body and Retry-After, and X-Forwarded-For believed only from TRUST_PROXY.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { issueApiKey } from '../../../src/keys/issue-key.js'
import { assertError, CORS } from '../../helpers/error-assert.js'
import { logEntries, startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

const WRONG_KEY = 'pst_wrongwrongwrongwrongwrongwrongwrongwrong1'
const RATE_LIMIT = /^"default";r=(\d+);t=(\d+)$/

/** The remaining count and seconds to reset from a RateLimit header, checked against its grammar. */
function rateLimitOf(response: Response): { remaining: number; reset: number } {
  const match = RATE_LIMIT.exec(response.headers.get('ratelimit') ?? '')
  assert.ok(match, `RateLimit header: ${response.headers.get('ratelimit')}`)
  return { remaining: Number(match[1]), reset: Number(match[2]) }
}

async function freshKey(server: TestServer): Promise<string> {
  return (await issueApiKey(server.store, 'rate-limited')).key
}

/**
 * Counts the queries of the stored keys the authenticator makes (it reads server.store.read on every call), until
 * `stop` puts the reader back.
 */
function countKeyQueries(server: TestServer): { count: number; stop(): void } {
  const read = server.store.read
  const counter = {
    count: 0,
    stop: () => {
      server.store.read = read
    },
  }
  server.store.read = new Proxy(read, {
    get(target, property) {
      if (property === 'selectFrom') {
        return (table: string) => {
          if (table === 'api_keys') counter.count++
          return target.selectFrom(table as 'api_keys')
        }
      }
      const value: unknown = Reflect.get(target, property)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
  return counter
}

/** A request relayed by the trusted proxy for `address`, with exactly the Authorization header given (if any). */
const from = (address: string, init: RequestInit = {}) => ({
  auth: false,
  ...init,
  headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': address },
})

/** The small quotas of the tests, counted behind a trusted proxy. */
const SMALL_QUOTAS = { RATE_LIMIT_PER_KEY: '5', RATE_LIMIT_ANONYMOUS: '3', TRUST_PROXY: '127.0.0.1' }

describe('rate limits with small quotas, behind a trusted proxy', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: SMALL_QUOTAS })
  })
  after(() => server.close())

  it('states the quota on every response, then answers 429 with the Error body, Retry-After and r=0', async () => {
    const key = await freshKey(server)
    for (let request = 1; request <= 5; request++) {
      const response = await server.request('/v1/pets', { auth: key })
      assert.equal(response.status, 200)
      await response.arrayBuffer()
      assert.equal(response.headers.get('ratelimit-policy'), '"default";q=5;w=60')
      const { remaining, reset } = rateLimitOf(response)
      assert.equal(remaining, 5 - request)
      // The window starts with the first request: 60 s exactly, then counting down.
      if (request === 1) assert.equal(reset, 60)
      else assert.ok(reset >= 59 && reset <= 60, String(reset))
    }
    const refused = await server.request('/v1/pets', { auth: key })
    const retryAfter = Number(refused.headers.get('retry-after'))
    assert.ok(retryAfter >= 59 && retryAfter <= 60, String(retryAfter))
    await assertError(
      refused,
      {
        status: 429,
        code: 'rate_limited',
        message: `This API key has used its 5 requests per 60 s; retry in ${retryAfter} s.`,
      },
      {
        'ratelimit-policy': '"default";q=5;w=60',
        ratelimit: `"default";r=0;t=${retryAfter}`,
        'retry-after': String(retryAfter),
      },
    )
    // One log line for the refused request, its access line, with the refusal's code and message: a flood of
    // refusals writes no more lines than requests.
    const requestId = refused.headers.get('x-request-id')
    assert.deepEqual(
      logEntries<Record<string, unknown>>(server)
        .filter((entry) => entry.reqId === requestId)
        .map(({ msg, statusCode, code, errorMessage }) => ({ msg, statusCode, code, errorMessage })),
      [
        {
          msg: 'request completed',
          statusCode: 429,
          code: 'rate_limited',
          errorMessage: `This API key has used its 5 requests per 60 s; retry in ${retryAfter} s.`,
        },
      ],
    )
  })

  it('refuses an exhausted key before validation, routing and lookup, and leaves other keys alone', async () => {
    const key = await freshKey(server)
    for (let request = 0; request < 5; request++) await (await server.request('/v1/pets', { auth: key })).arrayBuffer()
    const countPets = async () =>
      ((await (await server.request('/v1/pets?limit=100', { auth: TEST_API_KEY })).json()) as unknown[]).length
    const before = await countPets()
    for (const [path, init] of [
      ['/v1/pets', { json: { name: 'Over quota', categoryId: 1 } }],
      ['/v1/pets', { json: { name: 5 } }],
      ['/v1/pets/abc', {}],
      ['/v1/pets', { method: 'DELETE' }],
      ['/v1/unknown', {}],
    ] as const) {
      const response = await server.request(path, { ...init, auth: key })
      assert.equal(response.status, 429, `${path}: ${await response.text()}`)
      assert.equal(rateLimitOf(response).remaining, 0)
    }
    assert.equal(await countPets(), before)

    const other = await server.request('/v1/pets', { auth: await freshKey(server) })
    assert.equal(other.status, 200)
    assert.equal(rateLimitOf(other).remaining, 4)
  })

  it('counts requests without a valid key per client address, so a 401 flood is cut off, for that \
address only', async () => {
    const flooder = '203.0.113.7'
    const attempts: [string, RequestInit][] = [
      ['/v1/pets', { headers: { authorization: `Bearer ${WRONG_KEY}` } }],
      ['/v1/pets/1', {}],
      ['/v1/store/orders', { headers: { authorization: 'Basic abc' } }],
    ]
    for (const [index, [path, init]] of attempts.entries()) {
      const response = await server.request(path, from(flooder, init))
      assert.equal(response.status, 401)
      await response.arrayBuffer()
      assert.equal(response.headers.get('ratelimit-policy'), '"default";q=3;w=60')
      assert.equal(rateLimitOf(response).remaining, 2 - index)
    }
    for (const [path, init] of [...attempts, ['/v1/unknown', {}] as [string, RequestInit]]) {
      const refused = await server.request(path, from(flooder, init))
      const retryAfter = refused.headers.get('retry-after') ?? ''
      await assertError(
        refused,
        {
          status: 429,
          code: 'rate_limited',
          message:
            'Too many requests without a valid API key from this address (3 per 60 s); ' + `retry in ${retryAfter} s.`,
        },
        {
          'ratelimit-policy': '"default";q=3;w=60',
          ratelimit: `"default";r=0;t=${retryAfter}`,
          'www-authenticate': null,
        },
      )
    }

    // A valid key from there is looked up and counted against its own quota only; other addresses are not
    // affected by the flood either.
    const key = await freshKey(server)
    const valid = await server.request('/v1/pets', from(flooder, { headers: { authorization: `Bearer ${key}` } }))
    assert.equal(valid.status, 200)
    assert.equal(valid.headers.get('ratelimit-policy'), '"default";q=5;w=60')
    assert.equal(rateLimitOf(valid).remaining, 4)
    await valid.arrayBuffer()
    const elsewhere = await server.request(
      '/v1/pets',
      from('203.0.113.18', { headers: { authorization: `Bearer ${key}` } }),
    )
    assert.equal(elsewhere.status, 200)
    assert.equal(rateLimitOf(elsewhere).remaining, 3)
    const neighbour = await server.request(
      '/v1/pets',
      from('203.0.113.8', { headers: { authorization: `Bearer ${WRONG_KEY}` } }),
    )
    assert.equal(neighbour.status, 401)
    assert.equal(rateLimitOf(neighbour).remaining, 2)
  })

  it('refuses bad keys at a spent address without a key lookup: only a new well-formed key costs one', async () => {
    const keyQueries = countKeyQueries(server)
    try {
      const flooder = '203.0.113.10'
      const badKey = (index: number) => from(flooder, { headers: { authorization: `Bearer ${WRONG_KEY}${index}` } })
      for (let request = 0; request < 3; request++)
        assert.equal((await server.request('/v1/pets', badKey(request))).status, 401)
      assert.equal(keyQueries.count, 3)
      for (let request = 0; request < 50; request++) {
        const refused = await server.request('/v1/pets', badKey(100 + request))
        const retryAfter = refused.headers.get('retry-after') ?? ''
        await assertError(
          refused,
          {
            status: 429,
            code: 'rate_limited',
            message:
              'Too many requests without a valid API key from this address (3 per 60 s); ' +
              `retry in ${retryAfter} s.`,
          },
          {
            'ratelimit-policy': '"default";q=3;w=60',
            ratelimit: `"default";r=0;t=${retryAfter}`,
            'www-authenticate': null,
          },
        )
      }
      assert.equal(keyQueries.count, 3)
      // A key of a stored key's form is looked up once; not found, it is then refused from memory.
      const wellFormed = from(flooder, { headers: { authorization: `Bearer pst_${'n'.repeat(43)}` } })
      for (let request = 0; request < 50; request++) {
        const refused = await server.request('/v1/pets', wellFormed)
        assert.equal(refused.status, 429)
        await refused.arrayBuffer()
      }
      assert.equal(keyQueries.count, 4)
    } finally {
      keyQueries.stop()
    }
  })

  it('never refuses a valid key for the anonymous traffic of its address: 100 anonymous requests, then \
a key', async () => {
    const office = '203.0.113.20'
    const statuses = new Map<number, number>()
    for (let request = 0; request < 100; request++) {
      const response = await server.request('/v1/pets', from(office))
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      await response.arrayBuffer()
    }
    assert.deepEqual(Object.fromEntries(statuses), { 401: 3, 429: 97 })
    const key = await freshKey(server)
    for (let request = 1; request <= 5; request++) {
      const valid = await server.request('/v1/pets', from(office, { headers: { authorization: `Bearer ${key}` } }))
      assert.equal(valid.status, 200)
      assert.equal(valid.headers.get('ratelimit-policy'), '"default";q=5;w=60')
      assert.equal(rateLimitOf(valid).remaining, 5 - request)
      await valid.arrayBuffer()
    }
    const anonymous = await server.request('/v1/pets', from(office))
    const retryAfter = anonymous.headers.get('retry-after') ?? ''
    await assertError(anonymous, {
      status: 429,
      code: 'rate_limited',
      message: `Too many requests without a valid API key from this address (3 per 60 s); retry in ${retryAfter} s.`,
    })
    // The key's own quota still applies, from this address as from any other.
    const spentKey = await server.request('/v1/pets', from(office, { headers: { authorization: `Bearer ${key}` } }))
    assert.equal(spentKey.status, 429)
    assert.equal(spentKey.headers.get('ratelimit-policy'), '"default";q=5;w=60')
    await spentKey.arrayBuffer()
  })

  it("lets a valid key through at a spent address that floods made-up keys of a stored key's form, with one \
reading of the active keys per tenth of a second", async () => {
    const keyQueries = countKeyQueries(server)
    try {
      const shared = '203.0.113.30'
      for (let request = 0; request < 4; request++) await (await server.request('/v1/pets', from(shared))).arrayBuffer()
      const key = await freshKey(server)
      const started = Date.now()
      keyQueries.count = 0
      for (let round = 0; round < 5; round++) {
        // Each made-up key is new, so nothing remembered refuses it: at most one reading of every key's digest
        // is made for all of them, every tenth of a second.
        const madeUp = Array.from({ length: 20 }, () =>
          server.request(
            '/v1/pets',
            from(shared, { headers: { authorization: `Bearer pst_${randomBytes(32).toString('base64url')}` } }),
          ),
        )
        const valid = server.request('/v1/pets', from(shared, { headers: { authorization: `Bearer ${key}` } }))
        for (const refused of await Promise.all(madeUp)) {
          assert.equal(refused.status, 429)
          await refused.arrayBuffer()
        }
        const answer = await valid
        assert.equal(answer.status, 200, await answer.clone().text())
        assert.equal(rateLimitOf(answer).remaining, 4 - round)
        await answer.arrayBuffer()
      }
      // The valid key's own lookups (one, then from the cache while nobody commits) and the readings.
      const readings = Math.ceil((Date.now() - started) / 100) + 1
      assert.ok(keyQueries.count <= readings + 1, `${keyQueries.count} queries in ${Date.now() - started} ms`)
    } finally {
      keyQueries.stop()
    }
  })

  it('counts an IPv6 client by its /64 network, so that changing its address does not renew its quota', async () => {
    const statuses = async (addresses: string[]) => {
      const seen: number[] = []
      for (const address of addresses) {
        const response = await server.request('/v1/pets', from(address))
        seen.push(response.status)
        await response.arrayBuffer()
      }
      return seen
    }
    // Four addresses of one /64, written in different forms: one quota of three.
    assert.deepEqual(
      await statuses([
        '2001:db8:5:6::1',
        '2001:db8:5:6::2',
        '2001:0DB8:0005:0006:ffff:ffff:ffff:ffff',
        '2001:db8:5:6::3',
      ]),
      [401, 401, 401, 429],
    )
    // The next /64 has its own quota; so has each IPv4 address, the same in its IPv4-mapped form.
    assert.deepEqual(await statuses(['2001:db8:5:7::1']), [401])
    assert.deepEqual(
      await statuses(['198.51.100.7', '::ffff:198.51.100.7', '198.51.100.7', '::ffff:198.51.100.7', '198.51.100.8']),
      [401, 401, 401, 429, 401],
    )
  })

  it('exposes the rate-limit headers to browsers, on 200 and on 429', async () => {
    const key = await freshKey(server)
    for (let request = 1; request <= 6; request++) {
      const response = await server.request('/v1/pets', { auth: key, headers: { origin: 'https://app.example' } })
      await response.arrayBuffer()
      assert.equal(response.status, request <= 5 ? 200 : 429)
      // The whole list, on the 429 as on the 200: RateLimit, RateLimit-Policy and Retry-After among them.
      for (const [name, value] of Object.entries(CORS)) assert.equal(response.headers.get(name), value, name)
    }
  })

  it('never limits the health checks, and counts the public routes (metrics, the OpenAPI document) \
apart from the API', async () => {
    const exhausted = '203.0.113.9'
    for (let request = 0; request < 4; request++)
      await (
        await server.request('/v1/pets', from(exhausted, { headers: { authorization: `Bearer ${WRONG_KEY}` } }))
      ).arrayBuffer()
    for (const path of ['/healthz', '/readyz']) {
      const response = await server.request(path, from(exhausted))
      assert.equal(response.status, 200, path)
      await response.arrayBuffer()
      assert.equal(response.headers.get('ratelimit'), null, path)
      assert.equal(response.headers.get('ratelimit-policy'), null, path)
    }
    for (const path of ['/metrics', '/v1/openapi.json']) {
      const response = await server.request(path, from(exhausted))
      assert.equal(response.status, 200, path)
      await response.arrayBuffer()
      assert.equal(response.headers.get('ratelimit-policy'), '"default";q=3;w=60', path)
    }
  })
})

describe('rate limits with small quotas over an hour', () => {
  // 10,001 requests take most of a minute on a loaded machine: in a window of a minute the key's count could
  // start again before the last of them, and the test fail on a key admitted by its new window.
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { ...SMALL_QUOTAS, RATE_LIMIT_WINDOW_SECONDS: '3600' } })
  })
  after(() => server.close())

  it("keeps a spent key's count while more client addresses than it keeps counts for come and go", async () => {
    const key = await freshKey(server)
    for (let request = 0; request < 5; request++) await (await server.request('/v1/pets', { auth: key })).arrayBuffer()
    assert.equal((await server.request('/v1/pets', { auth: key })).status, 429)
    // One request without a key from each of 10,001 addresses: more than the 10,000 counts kept in memory.
    const addresses = Array.from(
      { length: 10_001 },
      (_, index) => `10.${index >> 16}.${(index >> 8) & 255}.${index & 255}`,
    )
    for (let start = 0; start < addresses.length; start += 50) {
      const statuses = await Promise.all(
        addresses.slice(start, start + 50).map(async (address) => {
          const response = await server.request('/v1/pets', from(address))
          await response.arrayBuffer()
          return response.status
        }),
      )
      assert.deepEqual(new Set(statuses), new Set([401]))
    }
    const again = await server.request('/v1/pets', { auth: key })
    assert.equal(again.status, 429)
    assert.equal(rateLimitOf(again).remaining, 0)
  })
})

describe('rate limits with the default configuration', () => {
  let server: TestServer
  // Empty values mean "unset": the production defaults apply, and no proxy is trusted.
  before(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_KEY: '', RATE_LIMIT_ANONYMOUS: '' } })
  })
  after(() => server.close())

  it('allows 600 requests per key per minute', async () => {
    const response = await server.request('/v1/pets', { auth: await freshKey(server) })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('ratelimit-policy'), '"default";q=600;w=60')
    assert.equal(response.headers.get('ratelimit'), '"default";r=599;t=60')
  })

  it('allows 60 requests per minute without a valid key from one address, whatever X-Forwarded-For says', async () => {
    for (let request = 1; request <= 60; request++) {
      // Without TRUST_PROXY, a client cannot escape the limit by naming other addresses.
      const response = await server.request('/v1/pets', {
        auth: WRONG_KEY,
        headers: { 'x-forwarded-for': `198.51.100.${request}` },
      })
      assert.equal(response.status, 401)
      await response.arrayBuffer()
      assert.equal(response.headers.get('ratelimit-policy'), '"default";q=60;w=60')
      assert.equal(rateLimitOf(response).remaining, 60 - request)
    }
    const refused = await server.request('/v1/pets', {
      auth: WRONG_KEY,
      headers: { 'x-forwarded-for': '198.51.100.200' },
    })
    assert.equal(refused.status, 429)
    assert.deepEqual(await refused.json(), {
      code: 'rate_limited',
      message:
        'Too many requests without a valid API key from this address (60 per 60 s); retry in ' +
        `${refused.headers.get('retry-after')} s.`,
      status: 429,
    })
  })
})

describe('rate limits over a short window', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({
      env: { RATE_LIMIT_PER_KEY: '2', RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_WINDOW_SECONDS: '2' },
    })
  })
  after(() => server.close())

  it('admits the quota again once Retry-After has passed', async () => {
    const key = await freshKey(server)
    for (let request = 0; request < 2; request++)
      assert.equal((await server.request('/v1/pets', { auth: key })).status, 200)
    const refused = await server.request('/v1/pets', { auth: key })
    assert.equal(refused.status, 429)
    assert.equal(refused.headers.get('ratelimit-policy'), '"default";q=2;w=2')
    const retryAfter = Number(refused.headers.get('retry-after'))
    assert.ok(retryAfter >= 1 && retryAfter <= 2, String(retryAfter))
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 50))
    const admitted = await server.request('/v1/pets', { auth: key })
    assert.equal(admitted.status, 200)
    assert.equal(admitted.headers.get('ratelimit'), '"default";r=1;t=2')
  })

  it("admits requests without a valid key again once the address's Retry-After has passed", async () => {
    const invalid = { status: 401, code: 'unauthorized', message: 'The API key is not valid.' }
    for (let request = 0; request < 2; request++)
      await assertError(await server.request('/v1/pets', { auth: WRONG_KEY }), invalid)
    // The address has spent its quota: refused before the key is looked up, until its window ends.
    const refused = await server.request('/v1/pets', { auth: WRONG_KEY })
    const retryAfter = Number(refused.headers.get('retry-after'))
    assert.ok(retryAfter >= 1 && retryAfter <= 2, String(retryAfter))
    await assertError(refused, {
      status: 429,
      code: 'rate_limited',
      message: `Too many requests without a valid API key from this address (2 per 2 s); retry in ${retryAfter} s.`,
    })
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 50))
    const admitted = await server.request('/v1/pets', { auth: WRONG_KEY })
    await assertError(admitted, invalid, { ratelimit: '"default";r=1;t=2' })
  })
})
