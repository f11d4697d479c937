// The event log and its feed (GET /v1/events) on the store of the pass: every change writes its event in the
// change's own transaction and nothing else does; the feed pages, filters, long-polls, refuses bad input, answers
// 410 once its position was purged, and its events match the Event schema the document names.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Ajv } from 'ajv'
import { sql } from 'kysely'
import { purgeOldEvents } from '../../src/events/event-purge.js'
import { runUnitOfWork, type UnitOfWork } from '../../src/db/unit-of-work.js'
import { recordEvent } from '../../src/events/event-log.js'
import { createServices, type Services } from '../../src/services.js'
import { assertError } from '../helpers/error-assert.js'
import {
  barrier,
  eventsBefore,
  readFeed,
  readWholeFeed,
  RFC3339_UTC_MILLISECONDS,
  summarise,
  waitForMetric,
  type FeedEvent,
} from '../helpers/events.js'
import { addPet, finishOrder, placeOrder, type Pet } from '../helpers/orders.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { TEST_STORE } from '../helpers/store.js'

/** What a refused `types` is told: a comma-separated list of event types. */
const TYPES_RULE =
  'must be a comma-separated list of event types, without spaces: pet.created, pet.updated, pet.deleted, ' +
  'order.placed, order.cancelled, order.completed, category.created, category.updated, category.deleted'

describe(`the event log on ${TEST_STORE}`, () => {
  let server: TestServer
  const get = (path: string, init?: RequestInit) => server.request(path, init)
  /** Where each test starts reading: what it writes comes after (helpers/events.ts says why a barrier). */
  const newestId = () => barrier(get)
  /** What the test wrote after `position`, once all of it is listed. */
  const eventsAfter = (position: number) => eventsBefore(get, position)

  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('writes pet.created with the pet as it was answered, an id and an RFC 3339 UTC timestamp', async () => {
    const start = await newestId()
    const pet = await addPet(server, 'available', 'Rex')
    const events = await eventsAfter(start)
    assert.equal(events.length, 1)
    const [event] = events as [FeedEvent]
    assert.deepEqual(event, { id: event.id, type: 'pet.created', timestamp: event.timestamp, data: { pet } })
    assert.ok(Number.isSafeInteger(event.id) && event.id > start)
    assert.match(event.timestamp, RFC3339_UTC_MILLISECONDS)
    assert.ok(Math.abs(Date.parse(event.timestamp) - Date.now()) < 60_000)
  })

  // PostgreSQL writes pet.created in the pet's own insert, splicing the id the database assigns into the JSON the
  // mapper made with a placeholder id (event-log.ts): the feed must still carry exactly JSON.stringify({ pet }).
  it("writes pet.created's data as the bytes of JSON.stringify({ pet }), whatever the name holds", async () => {
    const names = ['"id":0,"name":"x"}}', 'back\\slash "quoted"', 'Ünïcødé 猫 🐈‍⬛', 'line\u2028separator', '0']
    const start = await newestId()
    const pets: Pet[] = []
    for (const name of names) pets.push(await addPet(server, 'pending', name))
    const events = await eventsAfter(start)
    assert.deepEqual(
      events.map((event) => event.data),
      pets.map((pet) => ({ pet })),
    )
    const response = await get(`/v1/events?after=${start}&limit=${names.length}`)
    assert.equal(response.status, 200)
    const text = await response.text()
    for (const pet of pets) assert.ok(text.includes(`"data":${JSON.stringify({ pet })}}`), JSON.stringify(pet))
  })

  it('writes pet.updated for a PATCH that changes the pet, none for one that changes nothing or is refused, and \
pet.deleted with the last state', async () => {
    const pet = await addPet(server, 'available', 'Tom')
    const start = await newestId()
    const patch = (body: unknown, headers: Record<string, string> = {}) =>
      server.request(`/v1/pets/${pet.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json', ...headers },
        body: JSON.stringify(body),
      })
    const renamed = await patch({ name: 'Thomas' })
    assert.equal(renamed.status, 200)
    const etag = renamed.headers.get('etag') ?? ''
    assert.deepEqual(await renamed.json(), { ...pet, name: 'Thomas' })
    const unchanged = await patch({ name: 'Thomas' })
    assert.equal(unchanged.status, 200)
    await unchanged.arrayBuffer()
    const stale = await patch({ name: 'Tim' }, { 'if-match': '"0.0"' })
    assert.equal(stale.status, 412)
    await stale.arrayBuffer()
    const deleted = await server.request(`/v1/pets/${pet.id}`, { method: 'DELETE', headers: { 'if-match': etag } })
    assert.equal(deleted.status, 204)
    const events = await eventsAfter(start)
    assert.deepEqual(
      events.map(({ type, data }) => ({ type, data })),
      [
        { type: 'pet.updated', data: { pet: { ...pet, name: 'Thomas' } } },
        { type: 'pet.deleted', data: { pet: { ...pet, name: 'Thomas' } } },
      ],
    )
  })

  it('writes order.placed, order.cancelled and order.completed, each with the pet.updated of the \
status it moved', async () => {
    const pet = await addPet(server)
    const start = await newestId()
    const placed = await placeOrder(server, { petId: pet.id })
    const cancelled = await finishOrder(server, placed.id, 'cancel')
    const again = await placeOrder(server, { petId: pet.id, quantity: 2 })
    const completed = await finishOrder(server, again.id, 'complete')
    const events = await eventsAfter(start)
    assert.deepEqual(
      events.map(({ type, data }) => ({ type, data })),
      [
        { type: 'order.placed', data: { order: placed } },
        { type: 'pet.updated', data: { pet: { ...pet, status: 'pending' } } },
        { type: 'order.cancelled', data: { order: cancelled } },
        { type: 'pet.updated', data: { pet: { ...pet, status: 'available' } } },
        { type: 'order.placed', data: { order: again } },
        { type: 'pet.updated', data: { pet: { ...pet, status: 'pending' } } },
        { type: 'order.completed', data: { order: completed } },
        { type: 'pet.updated', data: { pet: { ...pet, status: 'sold' } } },
      ],
    )
    const ids = events.map((event) => event.id)
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    )
    assert.equal(new Set(ids).size, ids.length)
  })

  it('writes nothing for a refused change', async () => {
    const pending = await addPet(server, 'pending')
    const available = await addPet(server)
    const order = await placeOrder(server, { petId: available.id })
    await finishOrder(server, order.id, 'complete')
    const start = await newestId()
    assert.equal((await server.request('/v1/store/orders', { json: { petId: pending.id } })).status, 409)
    assert.equal((await server.request('/v1/store/orders', { json: { petId: 987_654_321 } })).status, 404)
    assert.equal((await server.request(`/v1/store/orders/${order.id}`, { method: 'DELETE' })).status, 409)
    assert.equal((await server.request(`/v1/store/orders/${order.id}/complete`, { method: 'POST' })).status, 409)
    assert.equal((await server.request('/v1/store/orders/987654321', { method: 'DELETE' })).status, 404)
    assert.equal((await server.request('/v1/pets', { json: { name: '', categoryId: 1 } })).status, 400)
    assert.deepEqual(await eventsAfter(start), [])
  })

  describe('a change that fails after it was made, inside its transaction', () => {
    let services: Services
    before(async () => {
      services = await createServices(server.config, server.store, server.app.log)
    })
    after(() => services.stop())
    const failing = async () => {
      throw new Error('forced failure after the change')
    }

    it("writes no event and leaves the pet, the order and the pet's status as they were", async () => {
      const pet = await addPet(server)
      const order = await placeOrder(server, { petId: pet.id })
      const spare = await addPet(server)
      const start = await newestId()

      const failingAfter = (change: (uow: UnitOfWork) => Promise<unknown>) =>
        runUnitOfWork(server.store, async (uow) => {
          await change(uow)
          await failing()
        })
      await assert.rejects(
        failingAfter((uow) => services.pets.create(uow, { name: 'Never', categoryId: 1 })),
        /forced/,
      )
      await assert.rejects(
        failingAfter((uow) => services.orders.cancel(uow, order.id)),
        /forced failure/,
      )
      await assert.rejects(
        failingAfter((uow) => services.orders.complete(uow, order.id)),
        /forced failure/,
      )
      const place = (uow: UnitOfWork) => services.orders.place(uow, { petId: spare.id, shipDate: null })
      await assert.rejects(failingAfter(place), /forced failure/)

      assert.deepEqual(await eventsAfter(start), [])
      const never = await server.store.admin.selectFrom('pets').select('id').where('name', '=', 'Never').execute()
      assert.deepEqual(never, [])
      assert.equal((await (await server.request(`/v1/store/orders/${order.id}`)).json()).status, 'placed')
      assert.equal((await (await server.request(`/v1/pets/${pet.id}`)).json()).status, 'pending')
      assert.equal((await (await server.request(`/v1/pets/${spare.id}`)).json()).status, 'available')
    })

    it('takes the change back when its event cannot be written (500, nothing stored)', async () => {
      const start = await newestId()
      const countPets = async () =>
        Number(
          (
            await server.store.admin
              .selectFrom('pets')
              .select((eb) => eb.fn.countAll().as('count'))
              .executeTakeFirstOrThrow()
          ).count,
        )
      const before = await countPets()
      // The table a writer inserts its event into: on PostgreSQL the one where events wait for their ids.
      const written = TEST_STORE === 'postgres' ? 'event_inbox' : 'events'
      await sql`alter table ${sql.table(written)} rename to events_elsewhere`.execute(server.store.admin)
      try {
        const response = await server.request('/v1/pets', { json: { name: 'Eventless', categoryId: 1 } })
        assert.equal(response.status, 500)
      } finally {
        await sql`alter table events_elsewhere rename to ${sql.table(written)}`.execute(server.store.admin)
      }
      assert.equal(await countPets(), before)
      assert.deepEqual(await eventsAfter(start), [])
    })
  })

  it('records pet.updated and pet.deleted for whoever records them in its transaction (PATCH and DELETE)', async () => {
    const pet = await addPet(server, 'available', 'Changing')
    const start = await newestId()
    const renamed: Pet = { ...pet, name: 'Changed' }
    await runUnitOfWork(server.store, async (uow) => {
      await recordEvent(uow, 'pet.updated', { pet: renamed })
      await recordEvent(uow, 'pet.deleted', { pet: renamed })
    })
    assert.deepEqual(
      (await eventsAfter(start)).map(({ type, data }) => ({ type, data })),
      [
        { type: 'pet.updated', data: { pet: renamed } },
        { type: 'pet.deleted', data: { pet: renamed } },
      ],
    )
  })

  it('pages with limit and Link, and filters by type, Link carrying the filter and the position past \
what was looked at', async () => {
    const start = await newestId()
    const pets = [await addPet(server), await addPet(server), await addPet(server)]
    const order = await placeOrder(server, { petId: pets[0]?.id })
    assert.equal((await eventsAfter(start)).length, 5)
    // The five, and the barrier that made sure they are all listed.
    const all = await readWholeFeed(get, start)
    assert.equal(all.length, 6)

    const first = await readFeed(get, `after=${start}&limit=2`)
    assert.deepEqual(first.events, all.slice(0, 2))
    assert.match(first.link, new RegExp(`^<${server.baseUrl}/v1/events\\?after=${all[1]?.id}&limit=2>; rel="next"$`))
    const second = await readFeed(get, `after=${first.nextAfter}&limit=2`)
    assert.deepEqual(second.events, all.slice(2, 4))
    const third = await readFeed(get, `after=${second.nextAfter}&limit=2`)
    assert.deepEqual(third.events, all.slice(4))
    const last = await readFeed(get, `after=${third.nextAfter}&limit=2`)
    assert.deepEqual(last.events, [])
    assert.equal(last.nextAfter, third.nextAfter)

    const orders = await readFeed(get, `after=${start}&types=order.placed,order.cancelled`)
    assert.deepEqual(
      orders.events.map(({ type, data }) => ({ type, data })),
      [{ type: 'order.placed', data: { order } }],
    )
    // Nothing of these types up to the last event: the next poll starts after it, not after the order.
    assert.equal(orders.nextAfter, all.at(-1)?.id)
    assert.match(orders.link, /&limit=100&types=order.placed%2Corder.cancelled>; rel="next"$/)
    const created = await readFeed(get, `after=${start}&types=pet.created&limit=2`)
    assert.deepEqual(
      summarise(created.events),
      pets.slice(0, 2).map((pet) => `pet.created pet ${pet.id} available`),
    )
    assert.equal(created.nextAfter, created.events[1]?.id)
  })

  it('refuses bad input with 400 and the Error body', async () => {
    const invalid = (path: string, message: string) => ({
      status: 400,
      code: 'invalid_request',
      message: `Invalid request: ${path} ${message}`,
      details: [{ path, message }],
    })
    const cases: [string, ReturnType<typeof invalid>][] = [
      ['after=-1', invalid('query/after', 'must be >= 0')],
      ['after=1.5', invalid('query/after', 'must be integer')],
      ['after=abc', invalid('query/after', 'must be integer')],
      ['after=1&after=2', invalid('query/after', 'must be given at most once')],
      ['limit=0', invalid('query/limit', 'must be >= 1')],
      ['limit=1001', invalid('query/limit', 'must be <= 1000')],
      ['wait=31', invalid('query/wait', 'must be <= 30')],
      ['wait=-1', invalid('query/wait', 'must be >= 0')],
      ['wait=0.5', invalid('query/wait', 'must be integer')],
      ['cursor=abc', invalid('query/cursor', 'is not a known parameter')],
    ]
    for (const [query, expected] of cases) await assertError(await server.request(`/v1/events?${query}`), expected)
    await assertError(await server.request('/v1/events?after=9007199254740992'), {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: query/after must be <= 9007199254740991',
      details: [{ path: 'query/after', message: 'must be <= 9007199254740991' }],
    })
    for (const types of [
      '',
      'pet.created,pet.sold',
      'pet.created,',
      'Pet.Created',
      'pet.created,,order.placed',
      ' pet.created',
    ]) {
      await assertError(
        await server.request(`/v1/events?types=${encodeURIComponent(types)}`),
        invalid('query/types', TYPES_RULE),
      )
    }
    // The largest position the schema takes is refused by the feed, which has not reached it (see below).
    const newest = await newestId()
    await assertError(await server.request('/v1/events?after=9007199254740991'), {
      status: 410,
      code: 'gone',
      message:
        `The feed has no event 9007199254740991: its newest is ${newest}, so the events this position stands for ` +
        'are not here (a database restored from an earlier copy, or a position from another shop); ' +
        'resynchronise and start again with after=0.',
    })
  })

  it('answers 410 gone for a position beyond the newest event, and no events after the newest itself', async () => {
    const newest = await newestId()
    const ahead = (after: number) => ({
      status: 410,
      code: 'gone',
      message:
        `The feed has no event ${after}: its newest is ${newest}, so the events this position stands for are not ` +
        'here (a database restored from an earlier copy, or a position from another shop); resynchronise and ' +
        'start again with after=0.',
    })
    await assertError(await server.request(`/v1/events?after=${newest + 1}`), ahead(newest + 1))
    await assertError(await server.request(`/v1/events?after=${newest + 1}&wait=5`), ahead(newest + 1))
    await assertError(
      await server.request(`/v1/events?after=9007199254740991&types=pet.created`),
      ahead(9007199254740991),
    )
    const caughtUp = await readFeed(get, `after=${newest}`)
    assert.deepEqual(caughtUp.events, [])
    assert.equal(caughtUp.nextAfter, newest)
  })

  it('long-polls: answers as soon as an event is committed, and [] with the same position when the \
wait ends', async () => {
    const start = await newestId()
    const empty = await readFeed(get, `after=${start}&wait=1`)
    assert.deepEqual(empty.events, [])
    assert.equal(empty.nextAfter, start)
    assert.match(empty.link, /&limit=100&wait=1>; rel="next"$/)

    const waiting = readFeed(get, `after=${start}&wait=30`)
    // Committed once the long poll is known to wait (the gauge counts it), so that it is woken, not answered at once.
    await waitForMetric(server, 'petstore_event_long_polls_waiting', 1)
    const pet = await addPet(server, 'available', 'Awaited')
    const answered = await waiting
    assert.deepEqual(
      answered.events.map(({ type, data }) => ({ type, data })),
      [{ type: 'pet.created', data: { pet } }],
    )
    assert.equal(answered.nextAfter, answered.events[0]?.id)
  })

  it('answers 410 gone for a position inside the purged range; after=0 and positions past it still work', async () => {
    await addPet(server, 'available', 'Purged')
    const purgedThrough = await newestId()
    const deleted = await purgeOldEvents(
      { data: server.store, retentionDays: 30 },
      new Date(Date.now() + 31 * 86_400_000),
    )
    assert.ok(deleted > 0)
    await assertError(await server.request('/v1/events?after=1'), {
      status: 410,
      code: 'gone',
      message:
        `Events up to ${purgedThrough} are no longer kept, so some after 1 were missed; resynchronise and start ` +
        'again with after=0.',
    })
    // A long poll from inside the purged range is refused at once, not held for its wait.
    await assertError(await server.request(`/v1/events?after=${purgedThrough - 1}&wait=5`), {
      status: 410,
      code: 'gone',
      message:
        `Events up to ${purgedThrough} are no longer kept, so some after ${purgedThrough - 1} were missed; ` +
        'resynchronise and start again with after=0.',
    })
    assert.deepEqual(await readWholeFeed(get, 0), [])
    assert.deepEqual(await readWholeFeed(get, purgedThrough), [])
    const survivor = await addPet(server, 'available', 'Kept')
    assert.deepEqual(summarise(await eventsAfter(0)), [`pet.created pet ${survivor.id} available`])
    // Events within the retention period are kept.
    assert.equal(await purgeOldEvents({ data: server.store, retentionDays: 30 }), 0)
    assert.deepEqual(summarise((await readWholeFeed(get, 0)).slice(0, 1)), [`pet.created pet ${survivor.id} available`])
  })

  it('lists its events under the Event schema the document names, which they match', async () => {
    const document = (await (await server.request('/v1/openapi.json', { auth: false })).json()) as {
      components: { schemas: Record<string, object> }
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
      >
    }
    assert.ok(document.components.schemas.Event, 'components.schemas.Event')
    assert.deepEqual(document.paths['/events']?.get?.responses['200']?.content?.['application/json']?.schema, {
      $ref: '#/components/schemas/Events',
    })
    assert.deepEqual((document.components.schemas.Events as { items?: unknown }).items, {
      $ref: '#/components/schemas/Event',
    })
    const ajv = new Ajv({ strict: false, allErrors: true })
    ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) })
    ajv.addFormat('int32', { type: 'number', validate: (value: number) => Number.isInteger(value) })
    ajv.addFormat('date-time', RFC3339_UTC_MILLISECONDS)
    ajv.addSchema({ components: document.components }, 'document')
    const validate = ajv.compile({ type: 'array', items: { $ref: 'document#/components/schemas/Event' } })
    const events = await readWholeFeed(get, 0)
    assert.ok(events.length > 0)
    assert.equal(validate(events), true, ajv.errorsText(validate.errors))
    assert.equal(validate([{ ...events[0], type: 'pet.sold' }]), false)
    assert.equal(validate([{ ...events[0], data: {} }]), false)
  })

  it('counts the events it wrote, by type, in /metrics', async () => {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text()
    const count = (type: string) =>
      Number(new RegExp(`^petstore_events_written_total\\{type="${type}"\\} (\\d+)$`, 'm').exec(text)?.[1])
    assert.ok(count('pet.created') >= 10, text)
    assert.ok(count('order.placed') >= 3)
    assert.equal(count('order.cancelled'), 1)
    assert.equal(count('order.completed'), 2)
    assert.equal(count('pet.deleted'), 1, 'the one DELETE; events written outside the services are not counted')
  })

  it('purges a backlog larger than one burst of batches in one run, instead of one burst per run', async () => {
    // Last: it leaves the feed empty. More than two batches of 500, so that bursts of one batch need three.
    const writers = Array.from({ length: 8 }, async () => {
      for (let created = 0; created < 140; created++) await addPet(server, 'available', 'Backlog')
    })
    await Promise.all(writers)
    await newestId()
    const kept = await readWholeFeed(get, 0)
    assert.ok(kept.length > 1000, `${kept.length} events`)
    const deleted = await purgeOldEvents(
      { data: server.store, retentionDays: 30 },
      new Date(Date.now() + 31 * 86_400_000),
      { batchesPerBurst: 1, pauseMs: 0 },
    )
    assert.equal(deleted, kept.length)
    assert.deepEqual(await readWholeFeed(get, 0), [])
  })
})

describe(`long polls capped by a longest wait of 0 on ${TEST_STORE}`, () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { EVENT_STREAMS_PER_KEY: '1' }, tuning: { eventWaitMaxSeconds: 0 } })
  })
  after(() => server.close())

  it('answers wait=30 at once, holding no place (two at a time pass where one place is allowed)', async () => {
    const get = (path: string) => server.request(path)
    const pages = await Promise.all([readFeed(get, 'wait=30'), readFeed(get, 'wait=30')])
    for (const page of pages) {
      assert.deepEqual(page.events, [])
      assert.match(page.link, /\?after=0&limit=100&wait=30>; rel="next"$/)
    }
  })
})
