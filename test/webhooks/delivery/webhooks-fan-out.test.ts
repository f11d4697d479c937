// The fan-out: deliveries are made from the event feed by the deliverers, not by the writers. Its rules on the
// repository itself (which endpoints get which events, batches, a position that moves only with its deliveries,
// events of a transaction still open never skipped); then two instances writing at once, each event delivered
// through exactly one delivery; then the deliverer giving way while the API is busy; and the bookkeeping
// connections that commit without waiting for the disk (PostgreSQL).
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import type { EventType } from '../../../src/db/database.js'
import { migrateToLatest } from '../../../src/db/migrate.js'
import type { Store } from '../../../src/db/store.js'
import { appendEvent, newestReadableEventId } from '../../../src/events/event.repository.js'
import { catchUpEndpoint, fanOutEvents, fanOutPosition } from '../../../src/webhooks/delivery/fan-out.repository.js'
import { purgeOldEvents } from '../../../src/events/event-purge.js'
import { updateWebhook } from '../../../src/webhooks/endpoints/webhook.repository.js'
import { startInstances, stopInstances } from '../../helpers/instances.js'
import type { ServerProcess } from '../../helpers/process.js'
import { numberEvents } from '../../helpers/numbering.js'
import { openTestStore } from '../../helpers/opened-store.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'
import { storedRows } from '../../helpers/stored-rows.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../../helpers/store.js'
import { WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { insertEndpointRow, LOOPBACK_WEBHOOKS, QUICK_WEBHOOKS, registerWebhook } from '../../helpers/webhooks.js'

const NOW = 1_700_000_000_000

/**
 * `count` creates in progress at `server`: their headers sent, their bodies still to come. They keep the API busy
 * until `end`, which closes their connections.
 */
async function requestsInProgress(server: TestServer, count: number): Promise<{ end(): void }> {
  const { port } = new URL(server.baseUrl)
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(Number(port), '127.0.0.1', () => resolve(socket)).once('error', reject)
        }),
    ),
  )
  for (const socket of sockets) {
    socket.on('error', () => {})
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    )
  }
  // Until the server has them all in hand.
  await new Promise((resolve) => setTimeout(resolve, 200))
  return { end: () => sockets.forEach((socket) => socket.destroy()) }
}

describe(`the fan-out's rules on ${TEST_STORE}`, () => {
  let store: Store
  let closeStore: () => Promise<void>

  before(async () => {
    ;({ store, close: closeStore } = await openTestStore())
    await migrateToLatest(store.admin)
  })
  after(() => closeStore())

  /** Writes an event and numbers it, as a service would at once (PostgreSQL): its id. */
  const event = async (type: EventType) => {
    await store.transaction((trx) => appendEvent(trx, { type, occurredAt: new Date(NOW).toISOString(), data: '{}' }))
    await numberEvents(store)
    return newestReadableEventId(store.read)
  }
  const endpoint = (name: string, fields: { types?: string; status?: 'disabled'; receivesAfter?: number }) =>
    insertEndpointRow(store.admin, {
      url: `https://${name}.example/hooks`,
      types: fields.types ?? null,
      description: name,
      status: fields.status ?? 'enabled',
      created_at: new Date(NOW).toISOString(),
      receives_after: fields.receivesAfter ?? 0,
    })
  const fanOut = (limit: number) => store.bookkeeping.transaction((trx) => fanOutEvents(trx, limit))
  const position = async () =>
    Number((await store.read.selectFrom('webhook_fan_out').select('position').executeTakeFirstOrThrow()).position)
  const deliveries = async () =>
    (
      await store.read
        .selectFrom('webhook_deliveries')
        .select(['endpoint_id', 'event_id', 'status', 'attempts', 'due_at', 'lease_token'])
        .orderBy('id')
        .execute()
    ).map((row) => ({ ...row, endpoint_id: Number(row.endpoint_id), event_id: Number(row.event_id) }))
  const pairs = async () => (await deliveries()).map((row) => [row.endpoint_id, row.event_id])
  it('makes nothing, and keeps its position, while no endpoint is enabled', async () => {
    await event('pet.created')
    assert.deepEqual(await fanOut(10), { deliveries: 0, more: false })
    assert.equal(await position(), 0)
  })

  it('gives each enabled endpoint the events of its types after its receives_after, a batch at a time, \
in order', async () => {
    const before = await event('pet.created')
    const all = await endpoint('all', { receivesAfter: before })
    const orders = await endpoint('orders', { types: ',order.placed,', receivesAfter: before })
    await endpoint('disabled', { status: 'disabled', receivesAfter: before })
    const e1 = await event('pet.created')
    const e2 = await event('order.placed')
    const late = await endpoint('late', { receivesAfter: e2 })
    const e3 = await event('pet.updated')
    const e4 = await event('order.placed')

    // Its position was behind (no endpoint was enabled): it starts after the earliest receives_after.
    assert.deepEqual(await fanOut(3), { deliveries: 5, more: true })
    assert.equal(await position(), e3)
    assert.deepEqual(await fanOut(3), { deliveries: 3, more: false })
    assert.equal(await position(), e4)
    assert.deepEqual(await fanOut(3), { deliveries: 0, more: false })
    assert.deepEqual(await pairs(), [
      [all, e1],
      [all, e2],
      [orders, e2],
      [all, e3],
      [late, e3],
      [all, e4],
      [orders, e4],
      [late, e4],
    ])
    for (const row of await deliveries())
      assert.deepEqual(
        [row.status, Number(row.attempts), Number(row.due_at), row.lease_token],
        ['pending', 0, NOW, null],
      )
  })

  it('moves its position only with the deliveries it made: a fan-out rolled back is made again, once', async () => {
    const made = (await deliveries()).length
    const e5 = await event('pet.deleted')
    await assert.rejects(
      store.bookkeeping.transaction(async (trx) => {
        await fanOutEvents(trx, 10)
        throw new Error('lost before its commit')
      }),
      /lost before its commit/,
    )
    assert.equal((await deliveries()).length, made)
    assert.notEqual(await position(), e5)
    assert.deepEqual(await fanOut(10), { deliveries: 2, more: false })
    assert.deepEqual(await fanOut(10), { deliveries: 0, more: false })
    assert.equal(await position(), e5)
    assert.deepEqual(
      (await deliveries()).filter((row) => row.event_id === e5).length,
      2,
      'one delivery for each endpoint of every type: "all" and "late"',
    )
  })

  it("delivers the events committed before an endpoint's change as it was then, whenever the fan-out \
reaches them", async () => {
    // Catch up first: the endpoints above have had every event so far.
    await event('pet.created')
    await fanOut(1000)
    const changing = await endpoint('changing', { types: ',pet.created,', receivesAfter: await position() })
    const change = (patch: { status?: 'enabled' | 'disabled'; types?: string | null }, enabledAfter?: number) =>
      store.transaction(async (trx) => {
        await catchUpEndpoint(trx, changing)
        await updateWebhook(trx, changing, { ...patch, updated_at: new Date(NOW).toISOString() }, enabledAfter)
      })
    const beforeDisabled = await event('pet.created')
    await change({ status: 'disabled' })
    const whileDisabled = await event('pet.created')
    await change({ status: 'enabled' }, whileDisabled)
    const beforeRetyped = await event('pet.created')
    await change({ types: ',order.placed,' })
    const afterRetyped = await event('pet.created')
    const placed = await event('order.placed')
    while ((await fanOut(1000)).more);
    assert.deepEqual(
      (await pairs()).filter(([endpointId]) => endpointId === changing).map(([, eventId]) => eventId),
      [beforeDisabled, beforeRetyped, placed],
      'nothing of while it was disabled, and pet.created only until its types changed',
    )
    assert.ok(afterRetyped < placed)
  })

  it(
    'fans out an event inserted first and committed last after the ones numbered before it, and skips nothing',
    { skip: TEST_STORE === 'sqlite' ? 'SQLite runs one write transaction at a time' : false },
    async () => {
      while ((await fanOut(1000)).more);
      const start = await position()
      let inserted!: () => void
      let commit!: () => void
      const insertedFirst = new Promise<void>((resolve) => (inserted = resolve))
      const commitNow = new Promise<void>((resolve) => (commit = resolve))
      const older = store.transaction(async (trx) => {
        await appendEvent(trx, { type: 'pet.updated', occurredAt: new Date(NOW).toISOString(), data: '{}' })
        // The insert is held until the commit (it is sent with it): a read in the transaction sends it now.
        await trx.selectFrom('events').select('id').limit(1).execute()
        inserted()
        await commitNow
      })
      await insertedFirst
      const newer = await event('pet.created')
      assert.equal(newer, start + 1, 'numbered at once, before the event of the transaction still open')
      assert.deepEqual(await fanOut(10), { deliveries: 2, more: false })
      assert.equal(await position(), newer)
      commit()
      await older
      await numberEvents(store)
      assert.equal(await newestReadableEventId(store.read), newer + 1)
      assert.deepEqual(await fanOut(10), { deliveries: 2, more: false })
      const made = (await deliveries()).filter((row) => row.event_id > start).map((row) => row.event_id)
      assert.deepEqual(made, [newer, newer, newer + 1, newer + 1])
      assert.equal(await position(), newer + 1)
    },
  )

  it('keeps the events the fan-out has not reached, however old, from the retention purge', async () => {
    while ((await fanOut(1000)).more);
    const reached = await position()
    const waiting = await event('pet.created')
    // Every event here is years old: all but the one still waiting go.
    const settings = { data: store, retentionDays: 1, neededAfter: fanOutPosition }
    assert.ok((await purgeOldEvents(settings)) > 0)
    const left = await store.read.selectFrom('events').select('id').orderBy('id').execute()
    assert.deepEqual(
      left.map((row) => Number(row.id)),
      [waiting],
    )
    assert.ok(waiting > reached)
  })
})

describe(`two instances writing at once on one ${TEST_STORE} database`, () => {
  const KEY = 'fan-out-static-key-0123456789'
  const CREATES = 200
  let database: TestDatabase
  let instances: ServerProcess[] = []
  let receiver: WebhookReceiver

  before(async () => {
    database = await createTestDatabase()
    instances = await startInstances(
      database,
      { PETSTORE_API_KEYS: KEY, ...LOOPBACK_WEBHOOKS, RATE_LIMIT_PER_KEY: '1000000' },
      2,
      QUICK_WEBHOOKS,
    )
    receiver = await WebhookReceiver.start()
  })
  after(async () => {
    await stopInstances(instances)
    await receiver.close()
    await database?.drop()
  })

  const client = (instance: ServerProcess | undefined) => {
    assert.ok(instance)
    return {
      request: (path: string, init: RequestInit & { json?: unknown } = {}) =>
        fetch(instance.baseUrl + path, {
          method: init.json === undefined ? init.method : 'POST',
          body: init.json === undefined ? init.body : JSON.stringify(init.json),
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        }),
    }
  }

  it(`delivers each of ${CREATES} events, created through both, through exactly one delivery`, async () => {
    await registerWebhook(client(instances[0]), receiver, { types: ['pet.created'] })
    await Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        for (let index = writer; index < CREATES; index += 8) {
          const response = await client(instances[index % 2]).request('/v1/pets', {
            json: { name: `Pet ${index}`, categoryId: 1 },
          })
          assert.equal(response.status, 201)
        }
      }),
    )
    await receiver.until(() => new Set(receiver.received.map((delivery) => delivery.webhookId)).size === CREATES)
    const rows = await storedRows<{ event_id: number | string }>(database, 'select event_id from webhook_deliveries')
    const events = await storedRows<{ id: number | string }>(
      database,
      "select id from events where type = 'pet.created'",
    )
    assert.deepEqual(
      rows.map((row) => Number(row.event_id)).sort((a, b) => a - b),
      events.map((row) => Number(row.id)).sort((a, b) => a - b),
    )
  })
})

describe(`the deliverer while the API is busy, on ${TEST_STORE}`, () => {
  let server: TestServer
  let stuck: WebhookReceiver

  before(async () => {
    server = await startTestServer({
      env: LOOPBACK_WEBHOOKS,
      tuning: {
        ...QUICK_WEBHOOKS,
        webhookBusyRequests: 3,
        webhookAttemptTimeoutMs: 60_000,
        webhookLeaseMs: 120_000,
        webhookShutdownWaitMs: 0,
      },
    })
    stuck = await WebhookReceiver.start({ answer: () => 'hang' })
  })
  after(async () => {
    await server.close()
    await stuck.close()
  })

  it('makes one attempt at a time per endpoint while requests queue, and all it may once they are done; waiting \
readers do not count', async () => {
    await registerWebhook(server, stuck, { types: ['pet.created'] })
    // Three long polls waiting: in progress, but idle. The deliverer is not slowed by them.
    const newest = await newestReadableEventId(server.store.read)
    const polls = new AbortController()
    const waiting = Array.from({ length: 3 }, () =>
      server
        .request(`/v1/events?after=${newest}&wait=30&types=order.placed`, { signal: polls.signal })
        .catch(() => undefined),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    for (let index = 0; index < 2; index++)
      assert.equal((await server.request('/v1/pets', { json: { name: `Idle ${index}`, categoryId: 1 } })).status, 201)
    await stuck.until(() => stuck.open === 2)
    // Three creates whose bodies are still arriving: the API counts as busy from here on.
    const queued = await requestsInProgress(server, 3)
    for (let index = 0; index < 3; index++)
      assert.equal((await server.request('/v1/pets', { json: { name: `Busy ${index}`, categoryId: 1 } })).status, 201)
    // Long enough for the deliverer to have started more, had it had the places (it looks every 50 ms).
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.equal(stuck.open, 2)
    queued.end()
    await stuck.until(() => stuck.open === 5)
    assert.equal(stuck.received.length, 5)
    polls.abort()
    await Promise.all(waiting)
  })
})

describe(`the pace of deliveries while the API is busy, on ${TEST_STORE}`, () => {
  const INTERVAL_MS = 300
  let server: TestServer
  let first: WebhookReceiver
  let second: WebhookReceiver

  before(async () => {
    server = await startTestServer({
      env: LOOPBACK_WEBHOOKS,
      tuning: { ...QUICK_WEBHOOKS, webhookBusyRequests: 3, webhookBusyIntervalMs: INTERVAL_MS },
    })
    first = await WebhookReceiver.start()
    second = await WebhookReceiver.start()
    await registerWebhook(server, first, { types: ['pet.created'] })
    await registerWebhook(server, second, { types: ['pet.created'] })
  })
  after(async () => {
    await server.close()
    await first.close()
    await second.close()
  })

  it('starts at most one attempt per busy interval, all endpoints together, the endpoints taking turns', async () => {
    const queued = await requestsInProgress(server, 3)
    for (let index = 0; index < 3; index++)
      assert.equal((await server.request('/v1/pets', { json: { name: `Paced ${index}`, categoryId: 1 } })).status, 201)
    await first.until(() => first.received.length === 3)
    await second.until(() => second.received.length === 3)
    queued.end()
    const arrivals = [
      ...first.received.map((delivery) => ({ endpoint: 'first', at: delivery.arrivedAt })),
      ...second.received.map((delivery) => ({ endpoint: 'second', at: delivery.arrivedAt })),
    ].sort((a, b) => a.at - b.at)
    const times = arrivals.map((arrival) => arrival.at)
    const gaps = times.slice(1).map((at, index) => Math.round(at - (times[index] ?? 0)))
    // Each attempt began an interval after the one before. An arrival may come late (a first connection, a busy
    // host), which shortens the gap after it, so the pacing is judged on spans: the attempts together took their
    // intervals, give or take one late arrival, and no three arrived within one interval.
    const span = (times.at(-1) ?? 0) - (times[0] ?? 0)
    assert.ok(span >= (times.length - 2) * INTERVAL_MS, `deliveries ${gaps.join(', ')} ms apart`)
    for (let index = 2; index < times.length; index++) {
      const pair = (times[index] ?? 0) - (times[index - 2] ?? 0)
      assert.ok(pair >= INTERVAL_MS, `deliveries ${gaps.join(', ')} ms apart`)
    }
    // Neither endpoint waits for the other's backlog: they alternate.
    const order = arrivals.map((arrival) => arrival.endpoint)
    assert.ok(
      order.every((endpoint, index) => index === 0 || endpoint !== order[index - 1]),
      `arrival order ${order.join(', ')}`,
    )
  })

  it("holds no more deliveries than it starts in a second: the rest stay for any instance's claim", async () => {
    const leased = async () =>
      Number(
        (
          await server.store.read
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll().as('count'))
            .where('status', '=', 'pending')
            .where('lease_token', 'is not', null)
            .executeTakeFirstOrThrow()
        ).count,
      )
    const before = first.received.length
    const beforeSecond = second.received.length
    const queued = await requestsInProgress(server, 3)
    for (let index = 0; index < 10; index++)
      assert.equal((await server.request('/v1/pets', { json: { name: `Held ${index}`, categoryId: 1 } })).status, 201)
    await first.until(() => first.received.length >= before + 2)
    // 20 pending deliveries (two endpoints); one interval's start is 300 ms: a second's worth is 4. One more may be
    // leased while its outcome waits to be recorded.
    const held = await leased()
    queued.end()
    assert.ok(held >= 1 && held <= 5, `${held} deliveries leased`)
    await first.until(() => first.received.length === before + 10)
    await second.until(() => second.received.length === beforeSecond + 10)
  })
})

describe(
  'the bookkeeping transactions on PostgreSQL',
  { skip: TEST_STORE === 'sqlite' ? "PostgreSQL's synchronous_commit" : false },
  () => {
    let store: Store
    let closeStore: () => Promise<void>
    before(async () => {
      ;({ store, close: closeStore } = await openTestStore())
    })
    after(() => closeStore())

    it('commit without waiting for the disk; the writers wait for it', async () => {
      const setting = async (run: Store['transaction']) =>
        run(
          async (trx) =>
            (await sql<{ value: string }>`select current_setting('synchronous_commit') as value`.execute(trx)).rows[0]
              ?.value,
        )
      assert.equal(await setting(store.bookkeeping.transaction), 'off')
      assert.equal(await setting(store.transaction), 'on')
    })

    it("reads on the bookkeeping connections, apart from the pipeline of the API's reads", async () => {
      const setting = async (db: Store['read']) =>
        (
          await db
            .selectFrom(sql<{ value: string }>`(select current_setting('synchronous_commit') as value)`.as('setting'))
            .select('value')
            .executeTakeFirstOrThrow()
        ).value
      assert.equal(await setting(store.bookkeeping.read), 'off')
      assert.equal(await setting(store.read), 'on')
    })
  },
)
