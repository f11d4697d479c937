// @petstore/client when the service, a proxy or the consumer misbehave: paging that would loop, an event stream
// cut by a proxy (resumed with Last-Event-ID, nothing lost or repeated), an event that is not JSON or a consumer
// that throws (never skipped on a reconnect), streams that close at once (reconnected, not given up), a long
// poll that does not wait (no spinning), a service unreachable for a while (follow and stream wait it out once
// answered, and fail at once before), a key without crypto.randomUUID, and a baseUrl error that hides secrets.
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { createPetstoreClient, type Event, type FetchFunction, type PetstoreClient } from '../../client/src/index.js'
import { newIdempotencyKey, uuidFromBytes } from '../../client/src/context.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const FAST_RETRY = { attempts: 2, baseDelayMs: 10, maxDelayMs: 50, maxTotalMs: 10_000 }

interface LoopbackServer {
  baseUrl: string
  close(): Promise<void>
}

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<LoopbackServer> {
  const server: Server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

function sseEvent(id: number): string {
  const event = { id, type: 'pet.created', occurredAt: '2026-01-01T00:00:00.000Z', data: {} }
  return `id: ${id}\ndata: ${JSON.stringify(event)}\n\n`
}

describe('@petstore/client against the real service, through a misbehaving proxy', () => {
  let server: TestServer
  let client: PetstoreClient
  before(async () => {
    server = await startTestServer()
    client = createPetstoreClient({ baseUrl: `${server.baseUrl}/v1`, apiKey: TEST_API_KEY, retry: FAST_RETRY })
    for (const name of ['Page one', 'Page two', 'Page three'])
      assert.equal((await server.request('/v1/pets', { json: { name, categoryId: 1 } })).status, 201)
  })
  after(() => server.close())

  /** A client whose responses to list calls carry this Link instead of the service's (a proxy rewriting it). */
  function clientWithLinks(rewrite: (link: string | null, page: number) => string | null): PetstoreClient {
    let page = 0
    const rewriting: FetchFunction = async (request, init) => {
      const response = await fetch(request, init)
      const headers = new Headers(response.headers)
      const link = rewrite(response.headers.get('link'), ++page)
      if (link === null) headers.delete('link')
      else headers.set('link', link)
      return new Response(response.body, { status: response.status, headers })
    }
    return createPetstoreClient({ baseUrl: `${server.baseUrl}/v1`, apiKey: TEST_API_KEY, fetch: rewriting })
  }

  it('listAll stops with an error when a next cursor repeats, instead of looping', async () => {
    let first: string | null = null
    const looping = clientWithLinks((link, page) => {
      if (page === 1) first = link
      return first
    })
    const names: string[] = []
    await assert.rejects(
      (async () => {
        for await (const pet of looping.pets.listAll({ limit: 1 })) names.push(pet.name)
      })(),
      { message: 'The service answered a next page cursor that repeats an earlier one; stopped paging.' },
    )
    assert.deepEqual(names, ['Page one', 'Page two'])
  })

  it('listAll stops with an error on an empty next cursor', async () => {
    const empty = clientWithLinks(() => '</v1/pets?limit=1&cursor=>; rel="next"')
    await assert.rejects(
      (async () => {
        for await (const pet of empty.pets.listAll({ limit: 1 })) assert.equal(pet.name, 'Page one')
      })(),
      { message: 'The service answered a next page cursor that is empty; stopped paging.' },
    )
  })

  it('listAll still reads every page of a well-behaved service', async () => {
    const names: string[] = []
    for await (const pet of client.pets.listAll({ limit: 1 })) names.push(pet.name)
    assert.deepEqual(names, ['Page one', 'Page two', 'Page three'])
  })

  it('stream: a proxy cuts the stream after the first event; the reconnection sends Last-Event-ID and nothing is lost \
or repeated', async () => {
    const lastEventIds: (string | undefined)[] = []
    // Forwards the stream event by event; the first connection is cut right after its first event.
    const proxy = await listen((request, response) => {
      const connection = lastEventIds.length
      lastEventIds.push(request.headers['last-event-id'] as string | undefined)
      const upstream = new AbortController()
      response.on('close', () => upstream.abort())
      void (async () => {
        const headers = new Headers({ authorization: request.headers.authorization ?? '', accept: 'text/event-stream' })
        const lastEventId = request.headers['last-event-id']
        if (typeof lastEventId === 'string') headers.set('last-event-id', lastEventId)
        const answer = await fetch(server.baseUrl + (request.url ?? '/'), { headers, signal: upstream.signal }).catch(
          () => undefined,
        )
        if (!answer?.body) return void response.destroy()
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' })
        let buffer = ''
        const decoder = new TextDecoder()
        try {
          for await (const chunk of answer.body) {
            buffer += decoder.decode(chunk as Uint8Array, { stream: true })
            for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
              const block = buffer.slice(0, end + 2)
              buffer = buffer.slice(end + 2)
              if (connection === 0 && /^id:/m.test(block)) {
                // Cut once the event has left: the client has it, and the connection then fails.
                response.write(block, () => response.destroy())
                return
              }
              response.write(block)
            }
          }
        } catch {
          response.destroy()
        }
      })()
    })
    try {
      const viaProxy = createPetstoreClient({ baseUrl: `${proxy.baseUrl}/v1`, apiKey: TEST_API_KEY, retry: FAST_RETRY })
      const start = Number((await (await server.request('/v1/events?limit=1000')).json()).at(-1)?.id ?? 0)
      const created: number[] = []
      for (const name of ['Resumed one', 'Resumed two', 'Resumed three']) {
        const response = await server.request('/v1/pets', { json: { name, categoryId: 1 } })
        created.push(((await response.json()) as { id: number }).id)
      }
      const received: Event[] = []
      for await (const event of viaProxy.events.stream({ after: start, types: ['pet.created'] })) {
        received.push(event)
        if (received.length === 3) break
      }
      assert.deepEqual(
        received.map((event) => (event.data as { pet: { id: number } }).pet.id),
        created,
      )
      assert.equal(new Set(received.map((event) => event.id)).size, 3)
      // One cut, one reconnection, from the event delivered before the cut.
      assert.deepEqual(lastEventIds, [undefined, String(received[0]?.id)])
    } finally {
      await proxy.close()
    }
  })
})

describe('@petstore/client: an event stream is never advanced past an event it did not deliver', () => {
  let requests: (string | undefined)[]
  let streamServer: LoopbackServer
  let body: (connection: number) => string
  before(async () => {
    streamServer = await listen((request, response) => {
      requests.push(request.headers['last-event-id'] as string | undefined)
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end(body(requests.length))
    })
  })
  after(() => streamServer.close())

  const streamClient = (attempts = FAST_RETRY.attempts) =>
    createPetstoreClient({
      baseUrl: `${streamServer.baseUrl}/v1`,
      apiKey: TEST_API_KEY,
      retry: { ...FAST_RETRY, attempts },
    })

  it('an event that is not JSON rejects with the SyntaxError, and the stream is not reconnected past it', async () => {
    requests = []
    body = () => `retry: 10\n\n${sseEvent(1)}id: 2\ndata: {not json\n\n${sseEvent(3)}`
    const stream = streamClient().events.stream()
    assert.equal((await stream.next()).value?.id, 1)
    await assert.rejects(stream.next(), SyntaxError)
    assert.deepEqual(await stream.next(), { done: true, value: undefined })
    assert.deepEqual(requests, [undefined])
  })

  it('an error the consumer throws into the stream ends it; no reconnection skips the event', async () => {
    requests = []
    body = () => `retry: 10\n\n${sseEvent(1)}${sseEvent(2)}`
    const stream = streamClient().events.stream()
    assert.equal((await stream.next()).value?.id, 1)
    const failure = new Error('the consumer failed on event 1')
    await assert.rejects(stream.throw(failure), (error) => error === failure)
    assert.deepEqual(await stream.next(), { done: true, value: undefined })
    assert.deepEqual(requests, [undefined])
  })

  it('streams that open (200) and close without an event are reconnected beyond retry.attempts', async () => {
    requests = []
    // Four quiet streams, more than the one attempt allowed, then one with an event.
    body = (connection) => (connection <= 4 ? 'retry: 10\n\n' : `retry: 10\n\n${sseEvent(7)}`)
    const stream = streamClient(1).events.stream()
    assert.equal((await stream.next()).value?.id, 7)
    await stream.return()
    assert.equal(requests.length, 5)
  })
})

describe('@petstore/client: follow does not spin when the service does not wait (the longest wait set to 0)', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ tuning: { eventWaitMaxSeconds: 0 } })
  })
  after(() => server.close())

  it('following for about a second makes a bounded number of requests', async () => {
    let requests = 0
    const counting: FetchFunction = (request, init) => {
      requests++
      return fetch(request, init)
    }
    const client = createPetstoreClient({
      baseUrl: `${server.baseUrl}/v1`,
      apiKey: TEST_API_KEY,
      fetch: counting,
      retry: FAST_RETRY,
    })
    const controller = new AbortController()
    const stop = setTimeout(() => controller.abort(new Error('done following')), 1_000)
    const start = Number((await (await server.request('/v1/events?limit=1000')).json()).at(-1)?.id ?? 0)
    const received: Event[] = []
    await assert.rejects(
      (async () => {
        for await (const event of client.events.follow({ after: start, wait: 5, signal: controller.signal }))
          received.push(event)
      })(),
      { message: 'done following' },
    )
    clearTimeout(stop)
    assert.deepEqual(received, [])
    assert.ok(requests >= 1 && requests < 50, `${requests} requests in about a second`)
  })
})

describe('@petstore/client: follow and stream outlast a service unreachable for a while', () => {
  let server: TestServer
  let proxy: TcpProxy
  /** Requests that got no answer at all (the proxy refusing connections), and a wait for the next few of them. */
  let refused = 0
  let onRefused: () => void = () => undefined
  const refusedMore = (count: number) => {
    const target = refused + count
    return new Promise<void>((resolve) => {
      onRefused = () => refused >= target && resolve()
    })
  }
  const counting: FetchFunction = async (request, init) => {
    try {
      return await fetch(request, init)
    } catch (error) {
      refused++
      onRefused()
      throw error
    }
  }
  const clientThroughProxy = () =>
    createPetstoreClient({
      baseUrl: `http://127.0.0.1:${proxy.port}/v1`,
      apiKey: TEST_API_KEY,
      fetch: counting,
      // Two attempts per call, so that a few calls' worth of refusals passes in well under a second.
      retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20, maxTotalMs: 2_000 },
    })
  const newPet = async (name: string) => {
    const response = await server.request('/v1/pets', { json: { name, categoryId: 1 } })
    assert.equal(response.status, 201)
    return ((await response.json()) as { id: number }).id
  }
  const lastEventId = async () => Number((await (await server.request('/v1/events?limit=1000')).json()).at(-1)?.id ?? 0)

  before(async () => {
    server = await startTestServer()
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(server.baseUrl).port) })
  })
  after(async () => {
    await proxy.close()
    await server.close()
  })

  for (const way of ['stream', 'follow'] as const) {
    it(`${way}: once answered, waits while the service is unreachable, then goes on without a gap`, async () => {
      const client = clientThroughProxy()
      const start = await lastEventId()
      const before = await newPet(`Before the outage (${way})`)
      const events =
        way === 'stream'
          ? client.events.stream({ after: start, types: ['pet.created'] })
          : client.events.follow({ after: start, types: ['pet.created'], wait: 1 })
      try {
        assert.equal(((await events.next()).value?.data as { pet: { id: number } }).pet.id, before)
        const waiting = events.next()
        // The connection is cut and refused for longer than three calls' worth of the retry policy's attempts.
        await proxy.cut()
        let during: number
        try {
          await refusedMore(6)
          during = await newPet(`During the outage (${way})`)
        } finally {
          await proxy.restore()
        }
        assert.equal(((await waiting).value?.data as { pet: { id: number } }).pet.id, during)
      } finally {
        await events.return()
      }
    })

    it(`${way}: a service unreachable before the first answer is a failure thrown at once`, async () => {
      await proxy.cut()
      try {
        const client = clientThroughProxy()
        const events = way === 'stream' ? client.events.stream() : client.events.follow({ wait: 1 })
        await assert.rejects(events.next(), TypeError)
      } finally {
        await proxy.restore()
      }
    })
  }
})

describe('@petstore/client: Idempotency-Keys and the baseUrl check', () => {
  it('makes a v4 UUID from crypto.getRandomValues where crypto.randomUUID is missing (an insecure context)', () => {
    assert.equal(uuidFromBytes(new Uint8Array(16)), '00000000-0000-4000-8000-000000000000')
    assert.equal(uuidFromBytes(new Uint8Array(16).fill(0xff)), 'ffffffff-ffff-4fff-bfff-ffffffffffff')
    const original = Object.getOwnPropertyDescriptor(globalThis, 'crypto')
    assert.ok(original)
    const { crypto } = globalThis
    Object.defineProperty(globalThis, 'crypto', {
      configurable: true,
      value: { getRandomValues: (bytes: Uint8Array) => crypto.getRandomValues(bytes) },
    })
    try {
      const keys = [newIdempotencyKey(), newIdempotencyKey()]
      for (const key of keys) assert.match(key, UUID_V4)
      assert.notEqual(keys[0], keys[1])
    } finally {
      Object.defineProperty(globalThis, 'crypto', original)
    }
    assert.match(newIdempotencyKey(), UUID_V4)
  })

  it('a baseUrl that is not http(s) is refused without echoing its user:password', () => {
    for (const [baseUrl, shown] of <[string, string][]>[
      ['ftp://alice:s3cret@files.example.com/v1', 'ftp://files.example.com/v1'],
      ['alice:s3cret@petstore.example.com/v1', 'petstore.example.com/v1'],
      ['//alice:s3cret@petstore.example.com', '//petstore.example.com'],
      ['petstore.example.com/v1?user=a@b', 'petstore.example.com/v1?user=a@b'],
    ]) {
      assert.throws(() => createPetstoreClient({ baseUrl, apiKey: TEST_API_KEY }), {
        name: 'TypeError',
        message: `baseUrl must be an http(s) URL, not ${JSON.stringify(shown)}`,
      })
    }
  })
})
