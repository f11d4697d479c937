// GET /v1/events/stream on the store of the pass: Server-Sent Events as a client reads them (frames, heartbeats,
// resuming after Last-Event-ID or after), its credentials (the header, or access_token on this route alone), and
// a real EventSource client (the eventsource package) that reconnects through a dropped connection and resumes
// without a gap or a repeat.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { EventSource } from 'eventsource'
import { purgeOldEvents } from '../../src/events/event-purge.js'
import { issueApiKey } from '../../src/keys/issue-key.js'
import { assertError } from '../helpers/error-assert.js'
import { openStream, type StreamEvent } from '../helpers/event-stream.js'
import { barrier, eventsBefore, readWholeFeed } from '../helpers/events.js'
import { addPet, placeOrder, type Pet } from '../helpers/orders.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'
import { TEST_STORE } from '../helpers/store.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'

const auth = { authorization: `Bearer ${TEST_API_KEY}` }

describe(`GET /v1/events/stream on ${TEST_STORE}`, () => {
  let server: TestServer
  const get = (path: string, init?: RequestInit) => server.request(path, init)
  /** Where each test starts reading (helpers/events.ts says why a barrier). */
  const newestId = () => barrier(get)
  /** The feed's JSON text of each event after `after`, by id: the stream's `data:` must be the same bytes. */
  async function feedTexts(after: number): Promise<Map<string, string>> {
    const text = await (await server.request(`/v1/events?after=${after}&limit=1000`)).text()
    const events = JSON.parse(text) as { id: number }[]
    // The feed's array, split back into its events' texts: they follow one another, separated by commas.
    const texts = new Map<string, string>()
    let rest = text.slice(1, -1)
    for (const [index, event] of events.entries()) {
      const next = events[index + 1]
      const end = next === undefined ? rest.length : rest.indexOf(`,{"id":${next.id},`)
      texts.set(String(event.id), rest.slice(0, end))
      rest = rest.slice(end + 1)
    }
    return texts
  }

  before(async () => {
    server = await startTestServer({ tuning: { eventHeartbeatSeconds: 1 } })
  })
  after(() => server.close())

  it("sends the events after `after`, then each new one as it is committed: id, event and data (the \
feed's bytes)", async () => {
    const start = await newestId()
    const [first, second] = [await addPet(server, 'available', 'One'), await addPet(server, 'pending', 'Two')]
    const stream = await openStream(`${server.baseUrl}/v1/events/stream?after=${start}`, auth)
    try {
      assert.equal(stream.response.headers.get('content-type'), 'text/event-stream; charset=utf-8')
      assert.equal(stream.response.headers.get('cache-control'), 'no-store')
      assert.equal(stream.response.headers.get('x-accel-buffering'), 'no')
      assert.match(stream.response.headers.get('ratelimit') ?? '', /^"default";r=\d+;t=\d+$/)
      assert.equal(await stream.nextFrame(), `: events after ${start}`)
      const initial = await stream.nextEvents(2)
      const third = await addPet(server, 'sold', 'Three')
      const [live] = await stream.nextEvents(1)
      const texts = await feedTexts(start)
      const streamed = [...initial, live]
      assert.deepEqual(
        streamed.map((event) => event?.id),
        [...texts.keys()].slice(0, 3),
      )
      assert.deepEqual(
        streamed.map((event) => event?.event),
        ['pet.created', 'pet.created', 'pet.created'],
      )
      assert.deepEqual(
        streamed.map((event) => JSON.parse(event?.data ?? '').data),
        [first, second, third].map((pet) => ({ pet })),
      )
      for (const event of [...initial, live])
        assert.equal(event?.data, texts.get(event?.id ?? ''), 'the same bytes as the feed')
    } finally {
      await stream.close()
    }
  })

  it('resumes after Last-Event-ID, which takes precedence over after (an EventSource reconnects to the \
same URL)', async () => {
    const start = await newestId()
    const pets = [await addPet(server), await addPet(server), await addPet(server)]
    const ids = (await eventsBefore(get, start)).map((event) => event.id)
    const stream = await openStream(`${server.baseUrl}/v1/events/stream?after=${start}`, {
      ...auth,
      'last-event-id': String(ids[0]),
    })
    try {
      assert.equal(await stream.nextFrame(), `: events after ${ids[0]}`)
      const events = await stream.nextEvents(2)
      assert.deepEqual(
        events.map((event) => JSON.parse(event.data).data.pet),
        pets.slice(1),
      )
    } finally {
      await stream.close()
    }
  })

  it('filters by type, and sends a heartbeat comment while nothing happens', async () => {
    const start = await newestId()
    const pet = await addPet(server)
    const seen = await newestId()
    const stream = await openStream(`${server.baseUrl}/v1/events/stream?after=${start}&types=order.placed`, auth)
    try {
      assert.equal(await stream.nextFrame(), `: events after ${start}`)
      // The first heartbeat also carries the position past the pets' events, the second one nothing new.
      assert.equal(await stream.nextFrame(), `: heartbeat\nid: ${seen}`)
      assert.equal(await stream.nextFrame(), ': heartbeat')
      const order = await (await server.request('/v1/store/orders', { json: { petId: pet.id } })).json()
      const [placed] = await stream.nextEvents(1)
      assert.equal(placed?.event, 'order.placed')
      assert.deepEqual(JSON.parse(placed?.data ?? '').data, { order })
    } finally {
      await stream.close()
    }
  })

  it('refuses bad input and a purged position before it starts streaming', async () => {
    await assertError(await server.request('/v1/events/stream?after=-1'), {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: query/after must be >= 0',
      details: [{ path: 'query/after', message: 'must be >= 0' }],
    })
    await assertError(await server.request('/v1/events/stream?limit=5'), {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: query/limit is not a known parameter',
      details: [{ path: 'query/limit', message: 'is not a known parameter' }],
    })
    await assertError(await server.request('/v1/events/stream', { headers: { 'last-event-id': '9007199254740992' } }), {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: header/last-event-id must be <= 9007199254740991',
      details: [{ path: 'header/last-event-id', message: 'must be <= 9007199254740991' }],
    })
    await assertError(await server.request('/v1/events/stream', { headers: { 'last-event-id': '12abc' } }), {
      status: 400,
      code: 'invalid_request',
      message:
        'Invalid request: header/last-event-id must be an event id: 0 or a decimal integer without leading zeros, ' +
        'at most 16 digits',
      details: [
        {
          path: 'header/last-event-id',
          message: 'must be an event id: 0 or a decimal integer without leading zeros, at most 16 digits',
        },
      ],
    })
    const typesMessage =
      'must be a comma-separated list of event types, without spaces: pet.created, pet.updated, pet.deleted, ' +
      'order.placed, order.cancelled, order.completed, category.created, category.updated, category.deleted'
    await assertError(await server.request('/v1/events/stream?types=pet.sold'), {
      status: 400,
      code: 'invalid_request',
      message: `Invalid request: query/types ${typesMessage}`,
      details: [{ path: 'query/types', message: typesMessage }],
    })
  })

  describe('credentials', () => {
    it('accepts the key as access_token on the stream alone, and never writes it to the log', async () => {
      const { key } = await issueApiKey(server.store, 'browser')
      const stream = await openStream(`${server.baseUrl}/v1/events/stream?access_token=${key}`)
      await stream.close()
      // Elsewhere the parameter is not a credential: no key, 401 before anything else.
      const noKey = {
        status: 401,
        code: 'unauthorized',
        message: 'An API key is required: send Authorization: Bearer <key>.',
      }
      await assertError(await fetch(`${server.baseUrl}/v1/events?access_token=${key}`), noKey)
      await assertError(await fetch(`${server.baseUrl}/v1/pets?access_token=${key}`), noKey)
      // The access log's line is written once the server has seen the stream end.
      while (!server.logs.some((line) => line.includes('/v1/events/stream?access_token=[redacted]')))
        await new Promise((resolve) => setTimeout(resolve, 20))
      assert.ok(!server.logs.some((line) => line.includes(key) || line.includes(key.slice(4))), 'the key is in the log')
    })

    it('refuses a key sent twice, an invalid one, and one without events:read', async () => {
      const { key } = await issueApiKey(server.store, 'browser too')
      await assertError(await fetch(`${server.baseUrl}/v1/events/stream?access_token=${key}`, { headers: auth }), {
        status: 400,
        code: 'invalid_request',
        message: 'Send the API key once: in Authorization or as access_token, not both, and access_token at most once.',
        details: [{ path: 'query/access_token', message: 'must be the only credential' }],
      })
      await assertError(await fetch(`${server.baseUrl}/v1/events/stream?access_token=${key}&access_token=${key}`), {
        status: 400,
        code: 'invalid_request',
        message: 'Send the API key once: in Authorization or as access_token, not both, and access_token at most once.',
        details: [{ path: 'query/access_token', message: 'must be the only credential' }],
      })
      await assertError(
        await fetch(`${server.baseUrl}/v1/events/stream?access_token=pst_not-a-key`),
        { status: 401, code: 'unauthorized', message: 'The API key is not valid.' },
        {
          'www-authenticate':
            'Bearer realm="petstore", error="invalid_token", error_description="The API key is not valid"',
        },
      )
      const { key: petsOnly } = await issueApiKey(server.store, 'pets only', {
        scopes: ['pets:read', 'pets:write', 'orders:read', 'orders:write'],
      })
      const forbidden = {
        status: 403,
        code: 'forbidden',
        message: 'This API key does not have the scope events:read, which this operation requires.',
      }
      const challenge = {
        'www-authenticate': 'Bearer realm="petstore", error="insufficient_scope", scope="events:read"',
      }
      await assertError(
        await fetch(`${server.baseUrl}/v1/events/stream?access_token=${petsOnly}`),
        forbidden,
        challenge,
      )
      await assertError(
        await fetch(`${server.baseUrl}/v1/events/stream`, { headers: { authorization: `Bearer ${petsOnly}` } }),
        forbidden,
        challenge,
      )
    })
  })

  it('answers 410 for a position beyond the newest event', async () => {
    const newest = await newestId()
    await assertError(await server.request('/v1/events/stream', { headers: { 'last-event-id': String(newest + 1) } }), {
      status: 410,
      code: 'gone',
      message:
        `The feed has no event ${newest + 1}: its newest is ${newest}, so the events this position stands for ` +
        'are not here (a database restored from an earlier copy, or a position from another shop); ' +
        'resynchronise and start again with after=0.',
    })
    // HEAD answers as GET does, without the body.
    const head = await server.request(`/v1/events/stream?after=${newest + 1}`, { method: 'HEAD' })
    assert.equal(head.status, 410)
    assert.equal(head.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.equal(await head.text(), '')
  })

  it('answers 410 for a position inside the purged range', async () => {
    await addPet(server, 'available', 'Old')
    const purgedThrough = await newestId()
    await purgeOldEvents({ data: server.store, retentionDays: 1 }, new Date(Date.now() + 2 * 86_400_000))
    await assertError(
      await server.request('/v1/events/stream', { headers: { 'last-event-id': String(purgedThrough - 1) } }),
      {
        status: 410,
        code: 'gone',
        message:
          `Events up to ${purgedThrough} are no longer kept, so some after ${purgedThrough - 1} were missed; ` +
          'resynchronise and start again with after=0.',
      },
    )
  })

  it("moves a filtered stream's Last-Event-ID past the events of other types with its heartbeat, so that \
reconnecting there is not refused once its last matching event is purged", async () => {
    const start = await newestId()
    const pet = await addPet(server)
    const order = await placeOrder(server, { petId: pet.id })
    await addPet(server, 'available', 'Other type')
    const newest = await newestId()
    const stream = await openStream(`${server.baseUrl}/v1/events/stream?after=${start}&types=order.placed`, auth)
    let placed: StreamEvent | undefined
    try {
      assert.equal(await stream.nextFrame(), `: events after ${start}`)
      ;[placed] = await stream.nextEvents(1)
      assert.equal(placed?.event, 'order.placed')
      assert.deepEqual(JSON.parse(placed?.data ?? '').data, { order })
      // Every event up to the newest was looked at: an EventSource takes the id, and dispatches nothing.
      assert.equal(await stream.nextFrame(), `: heartbeat\nid: ${newest}`)
      // Nothing was looked at since: a plain heartbeat.
      assert.equal(await stream.nextFrame(), ': heartbeat')
    } finally {
      await stream.close()
    }
    await purgeOldEvents({ data: server.store, retentionDays: 1 }, new Date(Date.now() + 2 * 86_400_000))
    // The reconnection an EventSource makes after that heartbeat resumes; one after the order.placed alone would
    // be refused though no order.placed was missed.
    const resumed = await openStream(`${server.baseUrl}/v1/events/stream?after=${start}&types=order.placed`, {
      ...auth,
      'last-event-id': String(newest),
    })
    try {
      assert.equal(await resumed.nextFrame(), `: events after ${newest}`)
      assert.equal(await resumed.nextFrame(), ': heartbeat')
    } finally {
      await resumed.close()
    }
    await assertError(
      await server.request(`/v1/events/stream?types=order.placed`, { headers: { 'last-event-id': placed?.id ?? '' } }),
      {
        status: 410,
        code: 'gone',
        message:
          `Events up to ${newest} are no longer kept, so some after ${placed?.id} were missed; ` +
          'resynchronise and start again with after=0.',
      },
    )
  })

  it('works with an EventSource client (the eventsource package): it reconnects through a dropped connection and \
resumes without a gap or a repeat', async () => {
    const address = new URL(server.baseUrl)
    const proxy = await startTcpProxy({ host: address.hostname, port: Number(address.port) })
    const start = await newestId()
    const received: { id: string; type: string; pet: Pet }[] = []
    const opened: number[] = []
    const source = new EventSource(`http://127.0.0.1:${proxy.port}/v1/events/stream?after=${start}`, {
      fetch: (url, init) => fetch(url, { ...init, headers: { ...init?.headers, ...auth } }),
    })
    const arrived = (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => (received.length >= count ? resolve() : setTimeout(check, 20))
        check()
      })
    try {
      source.addEventListener('open', () => opened.push(Date.now()))
      source.addEventListener('pet.created', (message) => {
        received.push({ id: message.lastEventId, type: message.type, pet: JSON.parse(message.data).data.pet })
      })
      const before = [await addPet(server, 'available', 'Before')]
      await arrived(1)
      await proxy.cut()
      const during = [await addPet(server, 'available', 'During 1'), await addPet(server, 'available', 'During 2')]
      await proxy.restore()
      await arrived(3)
      const afterwards = [await addPet(server, 'available', 'After')]
      await arrived(4)
      const ids = (await readWholeFeed(get, start)).map((event) => String(event.id)).slice(0, 4)
      assert.deepEqual(
        received,
        [...before, ...during, ...afterwards].map((pet, index) => ({ id: ids[index], type: 'pet.created', pet })),
      )
      assert.equal(opened.length, 2, 'it opened, and once more after the connection was dropped')
    } finally {
      source.close()
      await proxy.close()
    }
  })
})

describe(`event streams and long polls per key on ${TEST_STORE}`, () => {
  let server: TestServer

  before(async () => {
    server = await startTestServer({ env: { EVENT_STREAMS_PER_KEY: '2' } })
  })
  after(() => server.close())

  const metric = async (name: string) =>
    Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(await (await fetch(`${server.baseUrl}/metrics`)).text())?.[1])
  const until = async (condition: () => Promise<boolean>) => {
    while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const tooMany = {
    status: 429,
    code: 'rate_limited',
    message:
      'This API key already holds 2 open event streams and waiting long polls, the most it may; close one, or ' +
      'retry in 5 s.',
  }

  it('refuses a third stream or waiting long poll with 429, not other keys, and not requests that do \
not wait or whose events are there', async () => {
    const first = await openStream(`${server.baseUrl}/v1/events/stream`, auth)
    const waiting = server.request('/v1/events?wait=30')
    await until(async () => (await metric('petstore_event_long_polls_waiting')) === 1)
    assert.equal(await metric('petstore_event_streams_open'), 1)
    await assertError(await server.request('/v1/events/stream'), tooMany, { 'retry-after': '5' })
    await assertError(await server.request('/v1/events?wait=1'), tooMany, { 'retry-after': '5' })
    assert.equal((await server.request('/v1/events?wait=0')).status, 200)
    assert.equal((await server.request('/v1/pets')).status, 200)

    const { key } = await issueApiKey(server.store, 'another')
    const other = await openStream(`${server.baseUrl}/v1/events/stream`, { authorization: `Bearer ${key}` })
    await other.close()

    // The long poll ends with the event; its place is free again.
    await addPet(server)
    assert.equal((await waiting).status, 200)
    const second = await openStream(`${server.baseUrl}/v1/events/stream`, auth)
    await assertError(await server.request('/v1/events/stream'), tooMany, { 'retry-after': '5' })
    // Every place taken: a long poll whose events are there already does not wait, and is answered; one that
    // would wait is refused.
    const answered = await server.request('/v1/events?after=0&wait=1')
    assert.equal(answered.status, 200)
    const events = (await answered.json()) as { id: number; type: string }[]
    assert.deepEqual(
      events.map((event) => event.type),
      ['pet.created'],
    )
    await assertError(await server.request(`/v1/events?after=${events[0]?.id}&wait=1`), tooMany, {
      'retry-after': '5',
    })
    // A stream whose client went away gives its place back.
    await first.close()
    await until(async () => (await metric('petstore_event_streams_open')) === 1)
    const third = await openStream(`${server.baseUrl}/v1/events/stream`, auth)
    await Promise.all([second.close(), third.close()])
    await until(async () => (await metric('petstore_event_streams_open')) === 0)
  })

  it('answers HEAD with the headers alone, holding no place and no stream', async () => {
    const head = await server.request('/v1/events/stream', { method: 'HEAD' })
    assert.equal(head.status, 200)
    assert.equal(head.headers.get('content-type'), 'text/event-stream; charset=utf-8')
    // GET's stream has no length (it is chunked): HEAD must not claim one, least of all 0 (RFC 9110 section 9.3.2).
    assert.equal(head.headers.get('content-length'), null)
    assert.equal(await head.text(), '')
    const newest = await barrier((path, init) => server.request(path, init))
    const headList = await server.request(`/v1/events?after=${newest}&wait=30`, { method: 'HEAD' })
    assert.equal(headList.status, 200)
    assert.match(
      headList.headers.get('link') ?? '',
      new RegExp(`^<[^>]+/v1/events\\?after=${newest}&limit=100&wait=30>; rel="next"$`),
    )
    assert.equal(await metric('petstore_event_streams_open'), 0)
    assert.equal(await metric('petstore_event_long_polls_waiting'), 0)
  })

  it('ends every stream and long poll when the server closes, and closes without waiting for them', async () => {
    const newest = await barrier((path, init) => server.request(path, init))
    const stream = await openStream(`${server.baseUrl}/v1/events/stream?after=${newest}`, auth)
    const waiting = server.request(`/v1/events?after=${newest}&wait=30`)
    await until(async () => (await metric('petstore_event_long_polls_waiting')) === 1)
    await server.app.close()
    await stream.ended()
    const answered = await waiting
    assert.equal(answered.status, 200)
    assert.deepEqual(await answered.json(), [])
  })
})
