// Steps the webhook tests repeat: registering an endpoint (its secret handed to the receiver), reading its
// delivery log until it shows what a test waits for, or writing an endpoint's row straight into the store.
import assert from 'node:assert/strict'
import type { Insertable, Kysely } from 'kysely'
import type { Tuning } from '../../src/config/tuning.js'
import type { Database, WebhookEndpointTable } from '../../src/db/database.js'
import type { WebhookNetwork } from '../../src/webhooks/delivery/outbound-http.js'
import { collectPages } from './link.js'
import type { TestServer } from './server.js'
import type { WebhookReceiver } from './webhook-receiver.js'

export interface Webhook {
  id: number
  url: string
  types: string[] | null
  description: string | null
  status: 'enabled' | 'disabled'
  createdAt: string
  updatedAt: string
  previousSecretExpiresAt: string | null
  secret?: string
}

export interface Attempt {
  attempt: number
  startedAt: string
  durationMs: number
  outcome: string
  responseStatus: number | null
  error: string | null
  responseBody: string | null
}

export interface Delivery {
  id: number
  eventId: number
  webhookId: string
  status: 'pending' | 'succeeded' | 'failed'
  nextAttemptAt: string | null
  createdAt: string
  finishedAt: string | null
  attempts: Attempt[]
}

/** Environment for servers whose webhooks go to the tests' loopback receivers. */
export const LOOPBACK_WEBHOOKS = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }

/** Tuning for servers that deliver webhooks in tests: they look for due deliveries often, and stop quickly. */
export const QUICK_WEBHOOKS: Partial<Tuning> = { webhookPollIntervalMs: 50, webhookShutdownWaitMs: 100 }

/**
 * A network where no name resolves: for servers whose endpoints name hosts out there, so that no test ever reaches
 * them.
 */
export const NO_NETWORK: WebhookNetwork = {
  resolve: async (hostname) => {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
  },
}

/** Registers an endpoint that must be accepted (201); the receiver verifies with its secret, named `current`. */
export async function registerWebhook(
  server: Pick<TestServer, 'request'>,
  receiver: WebhookReceiver | undefined,
  body: Record<string, unknown>,
): Promise<Webhook & { secret: string }> {
  const response = await server.request('/v1/webhooks', { json: { url: receiver?.url, ...body } })
  const text = await response.text()
  assert.equal(response.status, 201, text)
  const webhook = JSON.parse(text) as Webhook & { secret: string }
  receiver?.secrets.set('current', webhook.secret)
  return webhook
}

/** Every delivery of an endpoint, newest first (all pages). */
export function readDeliveries(server: Pick<TestServer, 'request'>, webhookId: number): Promise<Delivery[]> {
  return collectPages<Delivery>((path) => server.request(path), `/v1/webhooks/${webhookId}/deliveries?limit=100`)
}

/** Reads the delivery log until `done` holds for it (the test's time-out bounds the wait). */
export async function deliveriesWhen(
  server: Pick<TestServer, 'request'>,
  webhookId: number,
  done: (deliveries: Delivery[]) => boolean,
): Promise<Delivery[]> {
  for (;;) {
    const deliveries = await readDeliveries(server, webhookId)
    if (done(deliveries)) return deliveries
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** Registers an endpoint for pet.created, creates a pet, and returns the delivery once it has failed for good. */
export async function failedDelivery(server: Pick<TestServer, 'request'>, url: string): Promise<Delivery> {
  const webhook = await registerWebhook(server, undefined, { url, types: ['pet.created'] })
  assert.equal((await server.request('/v1/pets', { json: { name: 'Probe', categoryId: 1 } })).status, 201)
  const [delivery] = await deliveriesWhen(
    server,
    webhook.id,
    (deliveries) => deliveries[0] !== undefined && deliveries[0].status !== 'pending',
  )
  assert.equal(delivery?.status, 'failed', JSON.stringify(delivery))
  return delivery
}

/**
 * A webhook endpoint, one of its attempts and one of its deliveries as the API shows them: samples for schema tests.
 */
export const SAMPLE_WEBHOOK = {
  id: 3,
  url: 'https://hooks.example.com/x',
  types: ['pet.created'],
  description: null,
  status: 'enabled',
  createdAt: '2026-05-01T08:00:00.000Z',
  updatedAt: '2026-05-01T08:00:00.000Z',
  previousSecretExpiresAt: null,
}
export const SAMPLE_SECRET = 'whsec_Yjpj6MLCUlX3XjlDX5IcJu3zNv+ttetN2/iAIC/U5OQ='
export const SAMPLE_ATTEMPT = {
  attempt: 1,
  startedAt: '2026-05-01T08:00:00.120Z',
  durationMs: 96,
  outcome: 'succeeded',
  responseStatus: 204,
  error: null,
  responseBody: null,
}
export const SAMPLE_DELIVERY = {
  id: 88,
  eventId: 4711,
  webhookId: 'evt_4711',
  status: 'succeeded',
  nextAttemptAt: null,
  createdAt: '2026-05-01T08:00:00.000Z',
  finishedAt: '2026-05-01T08:00:00.216Z',
  attempts: [SAMPLE_ATTEMPT],
}

/** The environment of a spawned instance that delivers to loopback receivers, on an already migrated database. */
export function instanceEnv(databaseUrl: string, key: string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, PETSTORE_API_KEYS: key, MIGRATE_ON_START: 'false', ...LOOPBACK_WEBHOOKS }
}

/**
 * An enabled endpoint's row written straight into the store (for the tests of the deliverer's repositories, which
 * run without a server), its secret a placeholder: `fields` changes what a test needs. Resolves to its id.
 */
export async function insertEndpointRow(
  db: Kysely<Database>,
  fields: Partial<Insertable<WebhookEndpointTable>> & { created_at: string },
): Promise<number> {
  const row = await db
    .insertInto('webhook_endpoints')
    .values({
      url: 'https://receiver.example/hooks',
      types: null,
      description: null,
      status: 'enabled',
      secret: 'sealed',
      previous_secret: null,
      previous_secret_expires_at: null,
      updated_at: fields.created_at,
      receives_after: 0,
      ...fields,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return Number(row.id)
}
