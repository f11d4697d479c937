// A shop moved SQLite → PostgreSQL → SQLite with petstore export and import, over the real server: after each
// move every answer is what it was (bodies and ETags, a page behind an old cursor, the event feed), stored keys
// still work and revoked ones are still refused, an Idempotency-Key replays its answer, new ids continue above
// every old one, and a webhook registered before the move is delivered after it, signed with the same secret.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { issueApiKey, revokeKey } from '../../src/keys/issue-key.js'
import { nextLink } from '../helpers/link.js'
import { petstore } from '../helpers/move.js'
import { deletePet, patchPet } from '../helpers/pets.js'
import { makeTempDir, startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase, type TestStore } from '../helpers/store.js'
import { WebhookReceiver } from '../helpers/webhook-receiver.js'
import { LOOPBACK_WEBHOOKS, registerWebhook } from '../helpers/webhooks.js'

const WEBHOOK_SECRET_KEY = randomBytes(32).toString('hex')
const ENV = { ...LOOPBACK_WEBHOOKS, WEBHOOK_SECRET_KEY }
const IDEMPOTENT_CREATE = { json: { name: 'Once', categoryId: 4 }, headers: { 'idempotency-key': 'create-once' } }

interface Answer {
  path: string
  status: number
  etag: string | null
  body: string
}

interface Shop {
  storedKey: string
  revokedKey: string
  /** The path of the second page of pets, behind a cursor the first server signed. */
  secondPage: string
  idempotentAnswer: { status: number; body: string }
  webhookSecret: string
}

async function answer(server: TestServer, path: string, auth?: string): Promise<Answer> {
  const response = await server.request(path, auth === undefined ? {} : { auth })
  return { path, status: response.status, etag: response.headers.get('etag'), body: await response.text() }
}

/** Everything a client can see of the shop, through the stored keys as well as the configured one. */
async function answers(server: TestServer, shop: Shop): Promise<Answer[]> {
  const paths = ['/v1/pets?limit=2', shop.secondPage, '/v1/pets/1', '/v1/pets/2', '/v1/pets/3', '/v1/store/orders/1']
  return [
    ...(await Promise.all(paths.map((path) => answer(server, path)))),
    await answer(server, '/v1/events?limit=100'),
    await answer(server, '/v1/webhooks'),
    await answer(server, '/v1/pets/1', shop.storedKey),
    await answer(server, '/v1/pets/1', shop.revokedKey),
  ]
}

async function created(server: TestServer, path: string, body: unknown): Promise<{ id: number }> {
  const response = await server.request(path, { json: body })
  assert.equal(response.status, 201, await response.clone().text())
  return (await response.json()) as { id: number }
}

async function buildShop(server: TestServer, receiver: WebhookReceiver): Promise<Shop> {
  for (const name of ['Rex', 'Tom', 'Kit', 'Max', 'Bo']) await created(server, '/v1/pets', { name, categoryId: 1 })
  assert.equal((await patchPet(server, 2, { name: 'Tommy' })).status, 200)
  assert.equal((await deletePet(server, 3)).status, 204)
  await created(server, '/v1/store/orders', { petId: 4, quantity: 2 })
  const { key: storedKey } = await issueApiKey(server.store, 'reader', { scopes: ['pets:read'] })
  const { key: revokedKey, row } = await issueApiKey(server.store, 'former')
  await revokeKey(server.store, row.id, new Date().toISOString())
  const replayed = await server.request('/v1/pets', IDEMPOTENT_CREATE)
  const idempotentAnswer = { status: replayed.status, body: await replayed.text() }
  const webhook = await registerWebhook(server, receiver, { types: ['pet.created'] })
  // The endpoint with the highest id is deleted: its id must not be handed out again after a move.
  const removed = await registerWebhook(server, undefined, { url: 'http://127.0.0.1:9/gone' })
  assert.equal((await server.request(`/v1/webhooks/${removed.id}`, { method: 'DELETE' })).status, 204)
  receiver.secrets.set('before the move', webhook.secret)
  const firstPage = await server.request('/v1/pets?limit=2')
  const next = nextLink(firstPage)
  assert.ok(next)
  const url = new URL(next)
  return {
    storedKey,
    revokedKey,
    secondPage: url.pathname + url.search,
    idempotentAnswer,
    webhookSecret: webhook.secret,
  }
}

/** Exports the database at `from` and imports the file into a new database of `store`. */
async function move(from: TestDatabase, store: TestStore, directory: string): Promise<TestDatabase> {
  const file = join(directory, `shop-${store}-${Date.now()}.jsonl`)
  const exported = await petstore(['export', file], { DATABASE_URL: from.url })
  assert.equal(exported.code, 0, exported.stderr)
  const target = await createTestDatabase(store)
  const imported = await petstore(['import', file], { DATABASE_URL: target.url, WEBHOOK_SECRET_KEY })
  assert.equal(imported.code, 0, imported.stderr)
  assert.equal(imported.stdout, '')
  return target
}

const largestEventId = (feed: Answer) =>
  Math.max(...(JSON.parse(feed.body) as { id: number }[]).map((event) => event.id))

describe(
  'a shop moved SQLite → PostgreSQL → SQLite',
  { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' },
  () => {
    const directory = makeTempDir()
    const databases: TestDatabase[] = []
    let receiver: WebhookReceiver
    let shop: Shop
    let original: Answer[]

    before(async () => {
      receiver = await WebhookReceiver.start()
    })
    after(async () => {
      await receiver.close()
      for (const database of databases) await database.drop()
    })

    async function continues(
      database: TestDatabase,
      store: TestStore,
      expected: Answer[],
      next: { pet: number; endpoint: number },
    ): Promise<Answer[]> {
      const server = await startTestServer({ database, env: ENV })
      try {
        const now = await answers(server, shop)
        assert.deepEqual(now, expected)
        assert.equal(now.at(-2)?.status, 200, 'the stored key still works')
        assert.equal(now.at(-1)?.status, 401, 'the revoked key is still refused')
        const replay = await server.request('/v1/pets', IDEMPOTENT_CREATE)
        assert.deepEqual({ status: replay.status, body: await replay.text() }, shop.idempotentAnswer)
        assert.equal(replay.headers.get('idempotent-replayed'), 'true')

        const lastEvent = largestEventId(now[6] as Answer)
        const pet = await created(server, '/v1/pets', { name: `After ${store}`, categoryId: 2 })
        assert.equal(pet.id, next.pet, 'new pets continue above every old id')
        const webhook = await registerWebhook(server, undefined, { url: 'http://127.0.0.1:9/new' })
        // The endpoint with the highest id was deleted before the move: its id is not handed out again.
        assert.equal(webhook.id, next.endpoint)
        assert.equal((await server.request(`/v1/webhooks/${webhook.id}`, { method: 'DELETE' })).status, 204)
        const feed = JSON.parse((await answer(server, `/v1/events?after=${lastEvent}&wait=30`)).body) as {
          id: number
          data: { pet: { id: number } }
        }[]
        assert.equal(feed.length, 1)
        // Event ids are the service's own on both stores: the next one is the last one moved + 1.
        assert.equal(feed[0]?.id, lastEvent + 1)
        assert.equal(feed[0]?.data.pet.id, pet.id)

        await receiver.until(() => receiver.received.some((delivery) => delivery.body.includes(`After ${store}`)))
        const delivery = receiver.received.find((each) => each.body.includes(`After ${store}`))
        assert.deepEqual(delivery?.verifiedWith, ['current', 'before the move'])
        return await answers(server, shop)
      } finally {
        await server.close()
      }
    }

    it('answers as before on PostgreSQL, then on SQLite again', async () => {
      const source = await createTestDatabase('sqlite')
      databases.push(source)
      const server = await startTestServer({ database: source, env: ENV })
      try {
        shop = await buildShop(server, receiver)
        original = await answers(server, shop)
      } finally {
        await server.close()
      }
      const onPostgres = await move(source, 'postgres', directory)
      databases.push(onPostgres)
      const afterPostgres = await continues(onPostgres, 'postgres', original, { pet: 7, endpoint: 3 })
      const backOnSqlite = await move(onPostgres, 'sqlite', directory)
      databases.push(backOnSqlite)
      await continues(backOnSqlite, 'sqlite', afterPostgres, { pet: 8, endpoint: 4 })
    })
  },
)
