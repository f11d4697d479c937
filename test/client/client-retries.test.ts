// The client's retries against the real service: a lost response is retried with the same Idempotency-Key and
// the change happens once (cancel included); 429 is waited out for as long as Retry-After says; what is never
// retried (an unsafe call without a key) or given up on; and the time budget bounds an attempt that never answers.
import assert from 'node:assert/strict'
import { createServer, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import {
  createPetstoreClient,
  PetstoreError,
  PetstoreTimeoutError,
  type FetchFunction,
} from '../../client/src/index.js'
import { DeprecationNotices } from '../../client/src/deprecation.js'
import { retryPolicy } from '../../client/src/retry.js'
import { Transport, type Call } from '../../client/src/transport.js'
import { issueApiKey } from '../../src/keys/issue-key.js'
import { startDroppingProxy, type DroppingProxy } from '../helpers/dropping-proxy.js'
import { eventsBefore } from '../helpers/events.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

const FAST_RETRY = { attempts: 4, baseDelayMs: 20, maxDelayMs: 100, maxTotalMs: 10_000 }

describe('@petstore/client: a lost response is retried and the change happens once', () => {
  let server: TestServer
  let proxy: DroppingProxy
  before(async () => {
    server = await startTestServer()
    proxy = await startDroppingProxy(server.baseUrl)
  })
  after(async () => {
    await proxy.close()
    await server.close()
  })

  const client = () => createPetstoreClient({ baseUrl: `${proxy.baseUrl}/v1`, apiKey: TEST_API_KEY, retry: FAST_RETRY })

  it('createPet: the second attempt carries the same key and gets the first response again; one pet \
exists', async () => {
    proxy.seen.length = 0
    proxy.dropNextResponse((request) => request.method === 'POST' && request.url === '/v1/pets')
    const { pet } = await client().pets.create({ name: 'Exactly once', categoryId: 7 })

    const posts = proxy.seen.filter((request) => request.method === 'POST')
    assert.equal(posts.length, 2)
    assert.deepEqual(
      posts.map((request) => [request.status, request.dropped]),
      [
        [201, true],
        [201, false],
      ],
    )
    assert.match(
      posts[0]?.idempotencyKey ?? '',
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
    assert.equal(posts[1]?.idempotencyKey, posts[0]?.idempotencyKey)
    const everyPet = (await (await server.request('/v1/pets?limit=100')).json()) as { name: string }[]
    assert.deepEqual(
      everyPet.filter((stored) => stored.name === 'Exactly once'),
      [pet],
    )
  })

  it('placeOrder and completeOrder: one order, completed once', async () => {
    const { pet } = await client().pets.create({ name: 'Ordered once', categoryId: 1 })
    proxy.seen.length = 0
    proxy.dropNextResponse((request) => request.method === 'POST' && request.url === '/v1/store/orders')
    const order = await client().orders.place({ petId: pet.id, quantity: 1 })
    proxy.dropNextResponse(
      (request) => request.method === 'POST' && request.url === `/v1/store/orders/${order.id}/complete`,
    )
    const completed = await client().orders.complete(order.id)
    assert.deepEqual(completed, { ...order, complete: true, status: 'completed' })
    assert.deepEqual(
      proxy.seen.map((request) => [request.method, request.url, request.status, request.dropped]),
      [
        ['POST', '/v1/store/orders', 201, true],
        ['POST', '/v1/store/orders', 201, false],
        ['POST', `/v1/store/orders/${order.id}/complete`, 200, true],
        ['POST', `/v1/store/orders/${order.id}/complete`, 200, false],
      ],
    )
    const orders = (await (await server.request('/v1/store/orders?limit=100')).json()) as { petId: number }[]
    assert.equal(orders.filter((stored) => stored.petId === pet.id).length, 1)
  })

  it('cancelOrder: the second attempt carries the same key and gets the first 200 again; cancelled once', async () => {
    const { pet } = await client().pets.create({ name: 'Cancelled once', categoryId: 1 })
    const order = await client().orders.place({ petId: pet.id, quantity: 1 })
    proxy.seen.length = 0
    proxy.dropNextResponse((request) => request.method === 'DELETE')
    assert.deepEqual(await client().orders.cancel(order.id), { ...order, status: 'cancelled' })
    assert.deepEqual(
      proxy.seen.map((request) => [request.method, request.status, request.dropped]),
      [
        ['DELETE', 200, true],
        ['DELETE', 200, false],
      ],
    )
    assert.match(proxy.seen[0]?.idempotencyKey ?? '', /^[0-9a-f-]{36}$/)
    assert.equal(proxy.seen[1]?.idempotencyKey, proxy.seen[0]?.idempotencyKey)
    // Every event committed so far (on PostgreSQL an event is listed once every older transaction on the server,
    // another test file's included, has ended: a barrier waits for that).
    const events = await eventsBefore((path, init) => server.request(path, init), 0)
    assert.equal(
      events.filter(
        (event) => event.type === 'order.cancelled' && 'order' in event.data && event.data.order.id === order.id,
      ).length,
      1,
    )
  })

  it('updatePet under If-Match: the replay answers the first response, not a 412 for the changed ETag', async () => {
    const { pet, etag } = await client().pets.create({ name: 'Patched once', categoryId: 1 })
    proxy.dropNextResponse((request) => request.method === 'PATCH')
    const updated = await client().pets.update(pet.id, { name: 'Patched' }, { ifMatch: etag })
    assert.equal(updated.pet.name, 'Patched')
    assert.notEqual(updated.etag, etag)
  })
})

describe('@petstore/client: 429 is waited out as Retry-After says', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_KEY: '2', RATE_LIMIT_WINDOW_SECONDS: '1' } })
  })
  after(() => server.close())

  it('every call succeeds; each 429 had a Retry-After and was followed by another attempt', async () => {
    const { key } = await issueApiKey(server.store, 'client-patient')
    const statuses: [number, string | null][] = []
    const recording: FetchFunction = async (request, init) => {
      const response = await fetch(request, init)
      statuses.push([response.status, response.headers.get('retry-after')])
      return response
    }
    const client = createPetstoreClient({
      baseUrl: `${server.baseUrl}/v1`,
      apiKey: key,
      fetch: recording,
      retry: { attempts: 6, maxTotalMs: 20_000 },
    })
    for (let call = 0; call < 8; call++) assert.deepEqual((await client.pets.list()).items, [])
    const limited = statuses.filter(([status]) => status === 429)
    assert.ok(limited.length >= 1, `some calls were rate limited: ${JSON.stringify(statuses)}`)
    assert.equal(statuses.filter(([status]) => status === 200).length, 8)
    for (const [, retryAfter] of limited) assert.match(retryAfter ?? '', /^[1-9]\d*$/)
    assert.equal(statuses.at(-1)?.[0], 200)
  })

  it('a Retry-After beyond the time budget is not waited: the 429 is thrown at once with retryAfter', async () => {
    const { key } = await issueApiKey(server.store, 'client-hurried')
    let attempts = 0
    const counting: FetchFunction = (request, init) => {
      attempts++
      return fetch(request, init)
    }
    const client = createPetstoreClient({
      baseUrl: `${server.baseUrl}/v1`,
      apiKey: key,
      fetch: counting,
      // Retry-After is at least 1 s: beyond this budget, so never waited.
      retry: { maxTotalMs: 900 },
    })
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => client.pets.list()))
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []))
    assert.ok(refused.length >= 1, 'a burst of 8 over a quota of 2 is refused in part')
    assert.equal(attempts, 8)
    for (const error of refused) {
      assert.ok(error instanceof PetstoreError)
      assert.equal(error.status, 429)
      assert.equal(error.code, 'rate_limited')
      assert.equal(error.retryAfter, Number(error.headers.get('retry-after')))
      assert.equal(error.message, `This API key has used its 2 requests per 1 s; retry in ${error.retryAfter} s.`)
    }
  })
})

describe('@petstore/client: what is never retried, and the bounds', () => {
  let closedPort: number
  before(async () => {
    // A port that was just free: connecting to it is refused, a real network failure.
    const listener = createServer()
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    closedPort = (listener.address() as { port: number }).port
    await new Promise((resolve) => listener.close(resolve))
  })

  async function attemptsFor(request: Request, call: Call, retry = FAST_RETRY, random = Math.random): Promise<number> {
    let attempts = 0
    const transport = new Transport({
      fetch: (input, init) => {
        attempts++
        return fetch(input, init)
      },
      retry: retryPolicy(retry),
      deprecations: new DeprecationNotices(),
      random,
    })
    await assert.rejects(transport.fetchFor(call)(request), TypeError)
    return attempts
  }

  it('an unsafe request without an Idempotency-Key is sent once; with one, or safe, up to the attempts', async () => {
    const url = `http://127.0.0.1:${closedPort}/v1/pets`
    assert.equal(await attemptsFor(new Request(url, { method: 'POST', body: '{}' }), { operationId: 'createPet' }), 1)
    assert.equal(
      await attemptsFor(new Request(url, { method: 'POST', body: '{}', headers: { 'idempotency-key': 'k-1' } }), {
        operationId: 'createPet',
      }),
      4,
    )
    assert.equal(await attemptsFor(new Request(url), { operationId: 'listPets' }), 4)
    // Cancelling twice would answer 409 the second time: without a key a DELETE is not repeated either.
    assert.equal(
      await attemptsFor(new Request(`http://127.0.0.1:${closedPort}/v1/store/orders/1`, { method: 'DELETE' }), {
        operationId: 'cancelOrder',
      }),
      1,
    )
  })

  it('refuses a time no timer can wait (beyond 2^31 - 1 ms), which would otherwise fire at once', () => {
    assert.throws(() => retryPolicy({ maxTotalMs: 2 ** 31 }), {
      name: 'RangeError',
      message: "retry.maxTotalMs must be at most 2147483647 ms (a timer's limit), not 2147483648",
    })
    assert.equal(retryPolicy({ maxTotalMs: 2 ** 31 - 1 }).maxTotalMs, 2 ** 31 - 1)
  })

  it('the total time bounds the retries', async () => {
    const url = `http://127.0.0.1:${closedPort}/v1/pets`
    assert.equal(
      await attemptsFor(
        new Request(url),
        { operationId: 'listPets' },
        // The backoff (1 s, the jitter pinned to its bound) would end past the budget: not started.
        { ...FAST_RETRY, baseDelayMs: 1_000, maxDelayMs: 1_000, maxTotalMs: 500 },
        () => 1,
      ),
      1,
    )
  })

  it('a network failure that outlasts the attempts reaches the caller as fetch threw it', async () => {
    const client = createPetstoreClient({
      baseUrl: `http://127.0.0.1:${closedPort}/v1`,
      apiKey: TEST_API_KEY,
      retry: { attempts: 2, baseDelayMs: 1 },
    })
    await assert.rejects(
      client.pets.create({ name: 'Nowhere', categoryId: 1 }),
      (error: unknown) => error instanceof TypeError && !(error instanceof PetstoreError),
    )
  })
})

describe('@petstore/client: the time budget bounds an attempt that gets no response', () => {
  // A loopback server that accepts every connection and never answers: a service hung, a black hole.
  let silent: ReturnType<typeof createServer>
  const sockets = new Set<Socket>()
  let silentUrl: string
  let connections = 0
  // One that answers each request with its head and the first byte of a body it promised whole, then nothing more.
  let stalling: ReturnType<typeof createServer>
  let stallingUrl: string
  const listen = async (server: ReturnType<typeof createServer>) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`
  }
  before(async () => {
    silent = createServer((socket) => {
      connections++
      sockets.add(socket)
      socket.on('error', () => undefined).on('close', () => sockets.delete(socket))
    })
    silentUrl = await listen(silent)
    stalling = createServer((socket) => {
      sockets.add(socket)
      socket.on('error', () => undefined).on('close', () => sockets.delete(socket))
      socket.once('data', () =>
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n['),
      )
    })
    stallingUrl = await listen(stalling)
  })
  after(async () => {
    for (const socket of sockets) socket.destroy()
    await Promise.all([silent, stalling].map((server) => new Promise((resolve) => server.close(resolve))))
  })

  /** Settles the promise, or fails the test when it is still pending after a generous guard. */
  async function settled<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
    let guard: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => {
      guard = setTimeout(() => reject(new Error('the call did not settle within 10 s')), 10_000)
    })
    try {
      return await Promise.race([
        promise.then(
          (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
          (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
        ),
        timeout,
      ])
    } finally {
      clearTimeout(guard)
    }
  }

  it('a read rejects with a PetstoreTimeoutError naming maxTotalMs', async () => {
    const client = createPetstoreClient({ baseUrl: silentUrl, apiKey: TEST_API_KEY, retry: { maxTotalMs: 300 } })
    const before = connections
    const result = await settled(client.pets.list())
    assert.equal(result.status, 'rejected')
    const error = (result as PromiseRejectedResult).reason as unknown
    assert.ok(error instanceof PetstoreTimeoutError, `a PetstoreTimeoutError, not ${String(error)}`)
    assert.equal(error.name, 'TimeoutError')
    assert.equal(error.operationId, 'listPets')
    assert.equal(error.maxTotalMs, 300)
    assert.equal(
      error.message,
      'listPets got no whole response within its time budget of 300 ms (retry.maxTotalMs 300).',
    )
    assert.ok(connections > before, 'the request reached the silent server')
  })

  it('a response whose body stops half-way times out the same way', async () => {
    const client = createPetstoreClient({ baseUrl: stallingUrl, apiKey: TEST_API_KEY, retry: { maxTotalMs: 300 } })
    const result = await settled(client.pets.list())
    assert.equal(result.status, 'rejected')
    const error = (result as PromiseRejectedResult).reason as unknown
    assert.ok(error instanceof PetstoreTimeoutError, `a PetstoreTimeoutError, not ${String(error)}`)
    assert.equal(
      error.message,
      'listPets got no whole response within its time budget of 300 ms (retry.maxTotalMs 300).',
    )
  })

  it('an unsafe call with its key times out the same way', async () => {
    const client = createPetstoreClient({ baseUrl: silentUrl, apiKey: TEST_API_KEY, retry: { maxTotalMs: 300 } })
    const result = await settled(client.orders.cancel(1))
    assert.equal(result.status, 'rejected')
    assert.ok((result as PromiseRejectedResult).reason instanceof PetstoreTimeoutError)
  })

  it("the caller's abort is not a timeout: it rejects with the signal's reason", async () => {
    const client = createPetstoreClient({ baseUrl: silentUrl, apiKey: TEST_API_KEY, retry: { maxTotalMs: 60_000 } })
    const controller = new AbortController()
    const pending = settled(client.pets.list({}, { signal: controller.signal }))
    const reason = new Error('the caller gave up')
    setTimeout(() => controller.abort(reason), 50)
    const result = await pending
    assert.equal(result.status, 'rejected')
    assert.equal((result as PromiseRejectedResult).reason, reason)
  })

  it("a long poll's wait is added to the budget: the timeout names it", async () => {
    const client = createPetstoreClient({ baseUrl: silentUrl, apiKey: TEST_API_KEY, retry: { maxTotalMs: 100 } })
    const result = await settled(client.events.list({ wait: 1 }))
    assert.equal(result.status, 'rejected')
    const error = (result as PromiseRejectedResult).reason as PetstoreTimeoutError
    assert.equal(
      error.message,
      'listEvents got no whole response within its time budget of 1100 ms ' +
        '(retry.maxTotalMs 100 plus the long poll wait).',
    )
  })
})
