// @petstore/client against the real service on a loopback port: every operation, paging over every pet, the
// typed PetstoreError, the deprecation warning, and the event feed followed by long polls and by the stream.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  createPetstoreClient,
  DEPRECATION_WARNING_CODE,
  PetstoreError,
  type Event,
  type FetchFunction,
  type PetstoreClient,
} from '../../client/src/index.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

const ENTITY_TAG = /^"\d+\.\d+"$/

function clientFor(server: TestServer, fetch?: FetchFunction): PetstoreClient {
  return createPetstoreClient({ baseUrl: `${server.baseUrl}/v1`, apiKey: TEST_API_KEY, ...(fetch ? { fetch } : {}) })
}

/** A fetch that sends the X-Request-Id the service then echoes, so that a test can name the id it expects. */
function withRequestId(requestId: string): FetchFunction {
  return (request, init) => {
    request.headers.set('x-request-id', requestId)
    return fetch(request, init)
  }
}

async function rejection(promise: Promise<unknown>): Promise<PetstoreError> {
  const error = await promise.then(
    () => assert.fail('expected a PetstoreError'),
    (failure: unknown) => failure,
  )
  assert.ok(error instanceof PetstoreError, `a PetstoreError, not ${String(error)}`)
  return error
}

/** The PetstoreError's own fields, as one object to compare exactly. */
function fieldsOf(error: PetstoreError) {
  const { name, status, code, message, details, requestId, retryAfter } = error
  return { name, status, code, message, details, requestId, retryAfter }
}

describe('@petstore/client: pets', () => {
  let server: TestServer
  let client: PetstoreClient
  before(async () => {
    server = await startTestServer()
    client = clientFor(server)
  })
  after(() => server.close())

  it('creates a pet and answers it with its ETag, the one the service stores', async () => {
    const { pet, etag } = await client.pets.create({ name: 'Rex', categoryId: 3 })
    assert.deepEqual(pet, { id: pet.id, name: 'Rex', categoryId: 3, status: 'available' })
    assert.match(etag, ENTITY_TAG)
    const read = await server.request(`/v1/pets/${pet.id}`)
    assert.equal(read.headers.get('etag'), etag)
    assert.deepEqual(await read.json(), pet)
  })

  it('reads a pet (deprecated getPet) with its ETag', async () => {
    const { pet: created, etag } = await client.pets.create({ name: 'Molly', categoryId: 1, status: 'pending' })
    assert.deepEqual(await client.pets.get(created.id), { pet: created, etag })
  })

  it('updates with a merge patch under If-Match, returns the new ETag, and refuses a stale one with 412', async () => {
    const { pet, etag } = await client.pets.create({ name: 'Tom', categoryId: 2 })
    const updated = await client.pets.update(pet.id, { name: 'Thomas', status: 'sold' }, { ifMatch: etag })
    assert.deepEqual(updated.pet, { id: pet.id, name: 'Thomas', categoryId: 2, status: 'sold' })
    assert.match(updated.etag, ENTITY_TAG)
    assert.notEqual(updated.etag, etag)

    const stale = await rejection(client.pets.update(pet.id, { name: 'Tommy' }, { ifMatch: etag }))
    assert.equal(stale.status, 412)
    assert.equal(stale.code, 'precondition_failed')
    assert.equal(stale.headers.get('etag'), updated.etag)
    assert.deepEqual((await client.pets.get(pet.id)).pet, updated.pet)
    // Without If-Match the change is unconditional.
    assert.equal((await client.pets.update(pet.id, { categoryId: 9 })).pet.categoryId, 9)
  })

  it('removes a pet under If-Match; afterwards it is 404', async () => {
    const { pet, etag } = await client.pets.create({ name: 'Gone', categoryId: 1 })
    const stale = await rejection(client.pets.remove(pet.id, { ifMatch: '"999.999"' }))
    assert.equal(stale.code, 'precondition_failed')
    assert.equal(await client.pets.remove(pet.id, { ifMatch: etag }), undefined)
    assert.equal((await rejection(client.pets.get(pet.id))).status, 404)
    assert.equal((await rejection(client.pets.remove(pet.id))).code, 'not_found')
  })

  it('lists a page with the cursor of the next one, filtered by status', async () => {
    const pending = [
      (await client.pets.create({ name: 'P1', categoryId: 1, status: 'pending' })).pet,
      (await client.pets.create({ name: 'P2', categoryId: 1, status: 'pending' })).pet,
      (await client.pets.create({ name: 'P3', categoryId: 1, status: 'pending' })).pet,
    ]
    const everyPending = (await server
      .request('/v1/pets?status=pending&limit=100')
      .then((response) => response.json())) as unknown[]
    const first = await client.pets.list({ status: 'pending', limit: 2 })
    assert.equal(first.items.length, 2)
    assert.equal(typeof first.nextCursor, 'string')
    const all = [...first.items]
    for (let cursor = first.nextCursor; cursor !== undefined;) {
      const page = await client.pets.list({ status: 'pending', limit: 2, cursor })
      all.push(...page.items)
      cursor = page.nextCursor
    }
    assert.deepEqual(all, everyPending)
    for (const pet of pending) assert.ok(all.some((listed) => listed.id === pet.id))
  })

  it('throws PetstoreError with exact fields for a 404', async () => {
    const error = await rejection(clientFor(server, withRequestId('client-test-404')).pets.get(987654))
    assert.deepEqual(fieldsOf(error), {
      name: 'PetstoreError',
      status: 404,
      code: 'not_found',
      message: 'No pet has id 987654.',
      details: undefined,
      requestId: 'client-test-404',
      retryAfter: undefined,
    })
    assert.ok(error instanceof Error)
  })

  it('throws PetstoreError with exact fields and details for a 400', async () => {
    const error = await rejection(
      clientFor(server, withRequestId('client-test-400')).pets.create({ name: 'Zero', categoryId: 0 }),
    )
    assert.deepEqual(fieldsOf(error), {
      name: 'PetstoreError',
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: body/categoryId must be >= 1',
      details: [{ path: 'body/categoryId', message: 'must be >= 1' }],
      requestId: 'client-test-400',
      retryAfter: undefined,
    })
  })

  it('throws PetstoreError 401 for a wrong API key, without retrying', async () => {
    let attempts = 0
    const counting: FetchFunction = (request, init) => {
      attempts++
      return fetch(request, init)
    }
    const wrongKey = createPetstoreClient({
      baseUrl: `${server.baseUrl}/v1`,
      apiKey: 'pst_wrongwrongwrongwrongwrongwrongwrongwrong1',
      fetch: counting,
    })
    const error = await rejection(wrongKey.pets.list())
    assert.equal(error.status, 401)
    assert.equal(error.code, 'unauthorized')
    assert.equal(attempts, 1)
  })

  it('warns once per client about a deprecated operation, naming its sunset and successor', async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    try {
      const fresh = clientFor(server)
      const { pet } = await fresh.pets.create({ name: 'Old API', categoryId: 1 })
      await fresh.pets.get(pet.id)
      await fresh.pets.get(pet.id)
      await rejection(fresh.pets.get(987654))
      await fresh.pets.list()
      // process.emitWarning delivers on the next tick.
      await new Promise((resolve) => setImmediate(resolve))
      const ours = warnings.filter(
        (warning) => (warning as Error & { code?: string }).code === DEPRECATION_WARNING_CODE,
      )
      assert.equal(ours.length, 1)
      assert.equal(
        ours[0]?.message,
        'The Petstore operation getPet is deprecated and will be removed on Thu, 05 Dec 2030 00:00:00 GMT; use ' +
          `${server.baseUrl}/v1/pets instead.`,
      )
      // Another client warns once more: the warning is per client.
      await clientFor(server).pets.get(pet.id)
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(
        warnings.filter((warning) => (warning as Error & { code?: string }).code === DEPRECATION_WARNING_CODE).length,
        2,
      )
    } finally {
      process.off('warning', onWarning)
    }
  })
})

describe('@petstore/client: listAll over 250 pets', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('yields every pet once, in id order, following Link page after page', async () => {
    const client = clientFor(server)
    const created: number[] = []
    for (let batch = 0; batch < 25; batch++) {
      const pets = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          client.pets.create({ name: `Pet ${batch * 10 + index}`, categoryId: 1 + (index % 3) }),
        ),
      )
      created.push(...pets.map(({ pet }) => pet.id))
    }
    let pages = 0
    const counting = clientFor(server, (request, init) => {
      pages++
      return fetch(request, init)
    })
    const listed: number[] = []
    for await (const pet of counting.pets.listAll()) listed.push(pet.id)
    assert.deepEqual(
      listed,
      created.toSorted((a, b) => a - b),
    )
    assert.equal(pages, 13) // 250 pets, 20 (the default) a page

    const available: number[] = []
    for await (const pet of client.pets.listAll({ status: 'available', limit: 100 })) available.push(pet.id)
    assert.deepEqual(available, listed)
  })
})

describe('@petstore/client: orders', () => {
  let server: TestServer
  let client: PetstoreClient
  before(async () => {
    server = await startTestServer()
    client = clientFor(server)
  })
  after(() => server.close())

  it('places, reads, lists, completes and cancels orders, and moves the pets with them', async () => {
    const first = (await client.pets.create({ name: 'Buddy', categoryId: 1 })).pet
    const second = (await client.pets.create({ name: 'Bella', categoryId: 1 })).pet
    const placed = await client.orders.place({ petId: first.id, quantity: 1, shipDate: '2031-01-02T03:04:05Z' })
    assert.deepEqual(placed, {
      id: placed.id,
      petId: first.id,
      quantity: 1,
      shipDate: '2031-01-02T03:04:05.000Z',
      complete: false,
      status: 'placed',
    })
    assert.equal((await client.pets.get(first.id)).pet.status, 'pending')
    assert.deepEqual(await client.orders.get(placed.id), placed)

    const other = await client.orders.place({ petId: second.id, quantity: 2 })
    const completed = await client.orders.complete(placed.id)
    assert.deepEqual(completed, { ...placed, complete: true, status: 'completed' })
    assert.equal((await client.pets.get(first.id)).pet.status, 'sold')
    const cancelled = await client.orders.cancel(other.id)
    assert.deepEqual(cancelled, { ...other, status: 'cancelled' })
    assert.equal((await client.pets.get(second.id)).pet.status, 'available')

    const page = await client.orders.list({ limit: 1 })
    assert.deepEqual(page.items, [completed])
    assert.equal(typeof page.nextCursor, 'string')
    const all = []
    for await (const order of client.orders.listAll({ limit: 1 })) all.push(order)
    assert.deepEqual(all, [completed, cancelled])
  })

  it('answers refusals as PetstoreError: a sold pet, a completed order, a missing order', async () => {
    const pet = (await client.pets.create({ name: 'Sold', categoryId: 1, status: 'sold' })).pet
    const refused = await rejection(client.orders.place({ petId: pet.id, quantity: 1 }))
    assert.equal(refused.status, 409)
    assert.equal(refused.code, 'conflict')

    const available = (await client.pets.create({ name: 'Once', categoryId: 1 })).pet
    const order = await client.orders.place({ petId: available.id, quantity: 1 })
    await client.orders.complete(order.id)
    // Not a retry: the order was completed, so a cancel is refused and the order is not read back as cancelled.
    const late = await rejection(client.orders.cancel(order.id))
    assert.deepEqual([late.status, late.code], [409, 'conflict'])
    const missing = await rejection(client.orders.get(987654))
    assert.deepEqual([missing.status, missing.code], [404, 'not_found'])
    const missingPet = await rejection(client.orders.place({ petId: 987654, quantity: 1 }))
    assert.deepEqual(missingPet.details, [{ path: 'body/petId', message: 'does not exist' }])
  })
})

describe('@petstore/client: events', () => {
  let server: TestServer
  let client: PetstoreClient
  before(async () => {
    server = await startTestServer({ tuning: { eventHeartbeatSeconds: 1 } })
    client = clientFor(server)
  })
  after(() => server.close())

  /** The feed position now: follow and stream start from here, so that only later events reach them. */
  async function position(): Promise<number> {
    let after = 0
    for (;;) {
      const page = await client.events.list({ after, limit: 1000 })
      if (page.events.length === 0) return page.nextAfter
      after = page.nextAfter
    }
  }

  it('lists a page with the after to poll with next, filtered by type', async () => {
    const start = await position()
    const { pet } = await client.pets.create({ name: 'Evented', categoryId: 1 })
    await client.pets.update(pet.id, { name: 'Evented twice' })
    const page = await client.events.list({ after: start, types: ['pet.updated'], wait: 5 })
    assert.equal(page.events.length, 1)
    assert.equal(page.events[0]?.type, 'pet.updated')
    assert.deepEqual(page.events[0]?.data, { pet: { ...pet, name: 'Evented twice' } })
    assert.equal(page.nextAfter, page.events[0]?.id)
    const gone = await rejection(client.events.list({ after: start, limit: 0 }))
    assert.equal(gone.code, 'invalid_request')
  })

  it('follow: long polls receive the events created after it starts', async () => {
    const start = await position()
    const controller = new AbortController()
    const feed = client.events.follow({ after: start, wait: 5, signal: controller.signal })
    // The first long poll is under way before anything changes.
    const firstEvent = feed.next()
    const { pet } = await client.pets.create({ name: 'Followed', categoryId: 1 })
    const order = await client.orders.place({ petId: pet.id, quantity: 1 })
    const received: Event[] = []
    for (let next = await firstEvent; !next.done; next = await feed.next()) {
      received.push(next.value)
      if (next.value.type === 'order.placed') break
    }
    await feed.return()
    assert.deepEqual(
      received.map((event) => event.type),
      ['pet.created', 'order.placed', 'pet.updated'].slice(0, received.length),
    )
    assert.deepEqual(received[0]?.data, { pet })
    assert.deepEqual(received.at(-1)?.data, { order })
    assert.ok(received.every((event) => event.id > start))
  })

  it('stream: Server-Sent Events deliver the events created after it starts, and break closes it', async () => {
    const start = await position()
    const stream = client.events.stream({ after: start, types: ['pet.created', 'pet.deleted'] })
    const firstEvent = stream.next()
    const { pet } = await client.pets.create({ name: 'Streamed', categoryId: 1 })
    await client.pets.remove(pet.id)
    const received: Event[] = []
    for (let next = await firstEvent; !next.done; next = await stream.next()) {
      received.push(next.value)
      if (received.length === 2) break
    }
    await stream.return()
    assert.deepEqual(
      received.map((event) => [event.type, event.data]),
      [
        ['pet.created', { pet }],
        ['pet.deleted', { pet }],
      ],
    )
    assert.ok(received.every((event) => event.id > start))
  })

  it('refuses an empty list of types before sending anything, in each of the three ways to read the feed', async () => {
    const message = 'types must name at least one event type; leave it out for every type'
    await assert.rejects(client.events.list({ types: [] }), { name: 'RangeError', message })
    await assert.rejects(client.events.follow({ types: [] }).next(), { name: 'RangeError', message })
    await assert.rejects(client.events.stream({ types: [] }).next(), { name: 'RangeError', message })
  })

  it('stream: an aborted signal ends the iteration with the abort reason', async () => {
    const controller = new AbortController()
    const stream = client.events.stream({ after: await position(), signal: controller.signal })
    const pending = stream.next()
    controller.abort(new Error('stop listening'))
    await assert.rejects(pending, /stop listening/)
  })
})
