// Managing webhook endpoints on the store of the pass: registration (with the guard against private destinations
// on, as in production), the exact refusals and what they leave stored, pages, changes, deletion, rotation, and
// where the secret may appear: only in the answers that show it; never in clear in the database, nor in the logs.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { issueApiKey } from '../../../src/keys/issue-key.js'
import { purgeOldDeliveries } from '../../../src/webhooks/delivery/delivery-purge.js'
import { keyId } from '../../../src/webhooks/secret-box.js'
import { assertError } from '../../helpers/error-assert.js'
import { collectPages } from '../../helpers/link.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { TEST_STORE } from '../../helpers/store.js'
import { NO_NETWORK, registerWebhook, type Webhook } from '../../helpers/webhooks.js'

const RFC3339_UTC_MILLISECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/

/** The endpoint as every answer but creation and rotation shows it. */
function withoutSecret(webhook: Webhook): Webhook {
  const shown = { ...webhook }
  delete shown.secret
  return shown
}

// The refusal of a description: printable, and no character that makes it display as other text.
const DESCRIPTION_RULE =
  'must not contain control characters (U+0000–U+001F, U+007F–U+009F), unpaired surrogates or bidirectional ' +
  'override and isolate characters (U+202A–U+202E, U+2066–U+2069)'

describe(`webhook endpoints on ${TEST_STORE}`, () => {
  let server: TestServer
  const storedEndpoints = () => server.store.admin.selectFrom('webhook_endpoints').selectAll().execute()

  before(async () => {
    // Endpoints here name hosts out there: nothing may ever be sent to them.
    server = await startTestServer({ webhookNetwork: NO_NETWORK })
  })
  after(() => server.close())

  it('requires webhooks:manage', async () => {
    const { key } = await issueApiKey(server.store, 'no webhooks', { scopes: ['pets:read', 'events:read'] })
    await assertError(
      await server.request('/v1/webhooks', { auth: key }),
      {
        status: 403,
        code: 'forbidden',
        message: 'This API key does not have the scope webhooks:manage, which this operation requires.',
      },
      { 'www-authenticate': 'Bearer realm="petstore", error="insufficient_scope", scope="webhooks:manage"' },
    )
  })

  it('registers an endpoint: 201, Location, enabled, every type by default, and a secret in Standard \
Webhooks form', async () => {
    const response = await server.request('/v1/webhooks', {
      json: { url: 'https://hooks.example.com/petstore', description: 'Shop sync' },
    })
    assert.equal(response.status, 201)
    const body = (await response.json()) as Webhook & { secret: string }
    assert.deepEqual(body, {
      id: body.id,
      url: 'https://hooks.example.com/petstore',
      types: null,
      description: 'Shop sync',
      status: 'enabled',
      createdAt: body.createdAt,
      updatedAt: body.createdAt,
      previousSecretExpiresAt: null,
      secret: body.secret,
    })
    assert.match(body.secret, SECRET)
    assert.match(body.createdAt, RFC3339_UTC_MILLISECONDS)
    assert.equal(response.headers.get('location'), `${server.baseUrl}/v1/webhooks/${body.id}`)
    // Read back: the same endpoint, without its secret.
    const read = await server.request(`/v1/webhooks/${body.id}`)
    assert.equal(read.status, 200)
    assert.deepEqual(await read.json(), withoutSecret(body))
  })

  it('stores the secret encrypted, never in clear, and never writes it to the logs', async () => {
    const webhook = await registerWebhook(server, undefined, {
      url: 'https://hooks.example.com/sealed',
      types: ['order.placed'],
    })
    const [row] = (await storedEndpoints()).filter((endpoint) => Number(endpoint.id) === webhook.id)
    assert.ok(row)
    assert.match(row.secret, /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/)
    const secretBytes = webhook.secret.slice('whsec_'.length)
    assert.ok(!row.secret.includes(secretBytes))
    assert.equal(row.types, ',order.placed,')
    assert.ok(!server.logs.join('').includes(secretBytes))
  })

  it('normalises the URL and keeps the types given, without repeats', async () => {
    const webhook = await registerWebhook(server, undefined, {
      url: 'HTTPS://Hooks.Example.COM:443/a?b=1',
      types: ['pet.created', 'order.completed'],
    })
    assert.equal(webhook.url, 'https://hooks.example.com/a?b=1')
    assert.deepEqual(webhook.types, ['pet.created', 'order.completed'])
    assert.equal(webhook.description, null)
  })

  describe('refusals (nothing is stored)', () => {
    const refused = async (
      body: unknown,
      expected: { message: string; details?: { path: string; message: string }[] },
    ) => {
      const before = (await storedEndpoints()).length
      await assertError(await server.request('/v1/webhooks', { json: body }), {
        status: 400,
        code: 'invalid_request',
        ...expected,
      })
      assert.equal((await storedEndpoints()).length, before)
    }

    it('a loopback destination, however it is written: 127.0.0.1, [::1], localhost', async () => {
      await refused(
        { url: 'http://127.0.0.1/hook' },
        {
          message:
            'Invalid request: url points at 127.0.0.1, a loopback address; webhooks are delivered only to public ' +
            'addresses unless the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (for a receiver on a ' +
            'local network).',
          details: [{ path: 'body/url', message: 'is a loopback address' }],
        },
      )
      await refused(
        { url: 'http://[::1]:8080/' },
        {
          message:
            'Invalid request: url points at [::1], a loopback address; webhooks are delivered only to public ' +
            'addresses unless the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (for a receiver on a ' +
            'local network).',
          details: [{ path: 'body/url', message: 'is a loopback address' }],
        },
      )
      await refused(
        { url: 'http://localhost:3000/' },
        {
          message:
            'Invalid request: url points at localhost, a loopback address; webhooks are delivered only to public ' +
            'addresses unless the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (for a receiver on a ' +
            'local network).',
          details: [{ path: 'body/url', message: 'is a loopback address' }],
        },
      )
    })

    it('private, link-local (cloud metadata) and shared addresses', async () => {
      await refused(
        { url: 'http://169.254.169.254/latest/meta-data/' },
        {
          message:
            'Invalid request: url points at 169.254.169.254, a link-local address (where cloud metadata services ' +
            'answer); webhooks are delivered only to public addresses ' +
            'unless the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (for a receiver on a local network).',
          details: [{ path: 'body/url', message: 'is a link-local address (where cloud metadata services answer)' }],
        },
      )
      await refused(
        { url: 'http://192.168.0.10/' },
        {
          message:
            'Invalid request: url points at 192.168.0.10, a private network address; webhooks are delivered only ' +
            'to public addresses unless the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (for a receiver ' +
            'on a local network).',
          details: [{ path: 'body/url', message: 'is a private network address' }],
        },
      )
    })

    it('other schemes, credentials, and bodies that break the schema', async () => {
      await refused(
        { url: 'ftp://example.com/' },
        {
          message: 'Invalid request: url must use http or https, not ftp.',
          details: [{ path: 'body/url', message: 'must be http or https' }],
        },
      )
      await refused(
        { url: 'https://me:secret@example.com/' },
        {
          message: 'Invalid request: url must not contain a user name or password.',
          details: [{ path: 'body/url', message: 'must not contain credentials' }],
        },
      )
      await refused(
        {},
        { message: 'Invalid request: body/url is required', details: [{ path: 'body/url', message: 'is required' }] },
      )
      // A line break, and the characters that make a note display as other text ("Trojan Source").
      for (const description of ['line\nbreak', '\u202Eevil', 'stock \u2066sync\u2069']) {
        await refused(
          { url: 'https://example.com/', description },
          {
            message: `Invalid request: body/description ${DESCRIPTION_RULE}`,
            details: [{ path: 'body/description', message: DESCRIPTION_RULE }],
          },
        )
      }
      await refused(
        { url: 'https://example.com/', types: [] },
        {
          message: 'Invalid request: body/types must NOT have fewer than 1 items',
          details: [{ path: 'body/types', message: 'must NOT have fewer than 1 items' }],
        },
      )
      await refused(
        { url: 'https://example.com/', types: ['pet.created', 'pet.created'] },
        {
          message: 'Invalid request: body/types must NOT have duplicate items (items ## 1 and 0 are identical)',
          details: [{ path: 'body/types', message: 'must NOT have duplicate items (items ## 1 and 0 are identical)' }],
        },
      )
      await refused(
        { url: 'https://example.com/', secret: 'whsec_mine' },
        {
          message: 'Invalid request: body/secret is not allowed',
          details: [{ path: 'body/secret', message: 'is not allowed' }],
        },
      )
    })

    it('an unknown event type', async () => {
      const response = await server.request('/v1/webhooks', {
        json: { url: 'https://example.com/', types: ['pet.sold'] },
      })
      const message =
        'must be one of "pet.created", "pet.updated", "pet.deleted", "order.placed", "order.cancelled", ' +
        '"order.completed", "category.created", "category.updated", "category.deleted"'
      await assertError(response, {
        status: 400,
        code: 'invalid_request',
        message: `Invalid request: body/types/0 ${message}`,
        details: [{ path: 'body/types/0', message }],
      })
    })
  })

  it('lists endpoints in pages, in id order, without secrets', async () => {
    for (let index = 0; index < 3; index++)
      await registerWebhook(server, undefined, { url: `https://hooks.example.com/page/${index}` })
    const first = await server.request('/v1/webhooks?limit=2')
    assert.equal(first.status, 200)
    assert.match(
      first.headers.get('link') ?? '',
      /^<http:\/\/127\.0\.0\.1:\d+\/v1\/webhooks\?limit=2&cursor=[^>]+>; rel="next"$/,
    )
    const all = await collectPages<Webhook>((path) => server.request(path), '/v1/webhooks?limit=2')
    const ids = all.map((webhook) => webhook.id)
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    )
    assert.equal(all.length, (await storedEndpoints()).length)
    assert.ok(all.every((webhook) => !('secret' in webhook)))
    // Its cursors belong to this collection: another one refuses them.
    const cursor = new URL(/^<([^>]+)>/.exec(first.headers.get('link') ?? '')?.[1] ?? '').searchParams.get('cursor')
    await assertError(await server.request(`/v1/store/orders?limit=2&cursor=${encodeURIComponent(cursor ?? '')}`), {
      status: 400,
      code: 'invalid_request',
      message: 'The cursor is not valid: use the Link header of a previous page unchanged.',
      details: [{ path: 'query/cursor', message: 'is not a cursor this service issued' }],
    })
  })

  it('changes an endpoint with a merge patch: null removes types (every type) and the description', async () => {
    const webhook = await registerWebhook(server, undefined, {
      url: 'https://hooks.example.com/patch',
      types: ['pet.created'],
      description: 'before',
    })
    const patched = await server.request(`/v1/webhooks/${webhook.id}`, {
      method: 'PATCH',
      json: { types: null, description: null, status: 'disabled' },
    })
    assert.equal(patched.status, 200)
    const body = (await patched.json()) as Webhook
    assert.deepEqual(
      { ...body, updatedAt: '' },
      { ...withoutSecret(webhook), types: null, description: null, status: 'disabled', updatedAt: '' },
    )
    assert.ok(body.updatedAt >= webhook.updatedAt)
    // The URL is checked as at registration.
    await assertError(
      await server.request(`/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: { url: 'http://10.0.0.1/' } }),
      {
        status: 400,
        code: 'invalid_request',
        message:
          'Invalid request: url points at 10.0.0.1, a private network address; webhooks are delivered only to ' +
          'public addresses unless the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (for a receiver on a ' +
          'local network).',
        details: [{ path: 'body/url', message: 'is a private network address' }],
      },
    )
    await assertError(
      await server.request(`/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: { description: 'a\u202Eb' } }),
      {
        status: 400,
        code: 'invalid_request',
        message: `Invalid request: body/description ${DESCRIPTION_RULE}`,
        details: [{ path: 'body/description', message: DESCRIPTION_RULE }],
      },
    )
    await assertError(await server.request(`/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: {} }), {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: body must NOT have fewer than 1 properties',
      details: [{ path: 'body', message: 'must NOT have fewer than 1 properties' }],
    })
    await assertError(await server.request(`/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: { url: null } }), {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: body/url must be string',
      details: [{ path: 'body/url', message: 'must be string' }],
    })
    const read = (await (await server.request(`/v1/webhooks/${webhook.id}`)).json()) as Webhook
    assert.equal(read.status, 'disabled')
    assert.equal(read.url, 'https://hooks.example.com/patch')
  })

  it('leaves an endpoint as it is, updatedAt included, when a patch changes nothing', async () => {
    const webhook = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/unchanged' })
    const patch = (body: unknown) => server.request(`/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: body })
    for (const body of [
      { types: null, status: 'enabled' },
      { url: webhook.url, description: null },
    ]) {
      const response = await patch(body)
      assert.equal(response.status, 200, JSON.stringify(body))
      assert.deepEqual(await response.json(), withoutSecret(webhook), JSON.stringify(body))
    }
    await new Promise((resolve) => setTimeout(resolve, 5))
    const changed = (await (await patch({ description: 'changed' })).json()) as Webhook
    assert.equal(changed.description, 'changed')
    assert.ok(changed.updatedAt > webhook.updatedAt, `${changed.updatedAt} after ${webhook.updatedAt}`)
  })

  it('takes the merge patch as application/merge-patch+json too, and that type nowhere else', async () => {
    const webhook = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/merge-patch' })
    const mergePatch = (path: string, method: string, body: unknown) =>
      server.request(path, {
        method,
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify(body),
      })
    const patched = await mergePatch(`/v1/webhooks/${webhook.id}`, 'PATCH', { description: 'merged' })
    assert.equal(patched.status, 200)
    const body = (await patched.json()) as Webhook
    assert.deepEqual({ ...body, updatedAt: '' }, { ...withoutSecret(webhook), description: 'merged', updatedAt: '' })
    await assertError(await mergePatch('/v1/webhooks', 'POST', { url: 'https://hooks.example.com/other' }), {
      status: 415,
      code: 'unsupported_media_type',
      message: 'The request body must be sent as Content-Type: application/json.',
    })
    // An operation that takes no body refuses one in any media type.
    await assertError(await mergePatch(`/v1/webhooks/${webhook.id}/rotate-secret`, 'POST', { a: 1 }), {
      status: 400,
      code: 'invalid_request',
      message: 'Invalid request: this operation takes no request body.',
      details: [{ path: 'body', message: 'must be absent' }],
    })
    assert.equal((await storedEndpoints()).filter((row) => row.url === 'https://hooks.example.com/other').length, 0)
  })

  it('deletes an endpoint: 204, then 404 everywhere', async () => {
    const webhook = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/delete' })
    const deleted = await server.request(`/v1/webhooks/${webhook.id}`, { method: 'DELETE' })
    assert.equal(deleted.status, 204)
    assert.equal(await deleted.text(), '')
    const notFound = { status: 404, code: 'not_found', message: `No webhook has id ${webhook.id}.` }
    await assertError(await server.request(`/v1/webhooks/${webhook.id}`), notFound)
    await assertError(await server.request(`/v1/webhooks/${webhook.id}`, { method: 'DELETE' }), notFound)
    await assertError(await server.request(`/v1/webhooks/${webhook.id}/deliveries`), notFound)
    await assertError(await server.request(`/v1/webhooks/${webhook.id}/rotate-secret`, { method: 'POST' }), notFound)
    await assertError(
      await server.request(`/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: { status: 'enabled' } }),
      notFound,
    )
  })

  it('rotates the secret: a new one, shown once, and until when the previous one keeps signing', async () => {
    const webhook = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/rotate' })
    const response = await server.request(`/v1/webhooks/${webhook.id}/rotate-secret`, { method: 'POST' })
    assert.equal(response.status, 200)
    const rotated = (await response.json()) as Webhook & { secret: string }
    assert.match(rotated.secret, SECRET)
    assert.notEqual(rotated.secret, webhook.secret)
    assert.ok(rotated.previousSecretExpiresAt !== null)
    const overlap = Date.parse(rotated.previousSecretExpiresAt) - Date.parse(rotated.updatedAt)
    assert.equal(overlap, 86_400_000)
    const read = (await (await server.request(`/v1/webhooks/${webhook.id}`)).json()) as Webhook
    assert.equal(read.previousSecretExpiresAt, rotated.previousSecretExpiresAt)
    assert.ok(!('secret' in read))
  })

  it('replays an idempotent registration with the same secret, which the stored response keeps encrypted', async () => {
    const headers = { 'idempotency-key': 'register-once' }
    const first = await server.request('/v1/webhooks', { json: { url: 'https://hooks.example.com/once' }, headers })
    const replay = await server.request('/v1/webhooks', { json: { url: 'https://hooks.example.com/once' }, headers })
    assert.equal(first.status, 201)
    assert.equal(replay.status, 201)
    assert.equal(replay.headers.get('idempotent-replayed'), 'true')
    const created = (await first.json()) as Webhook & { secret: string }
    assert.deepEqual(await replay.json(), created)
    assert.equal(
      (await storedEndpoints()).filter((endpoint) => endpoint.url === 'https://hooks.example.com/once').length,
      1,
    )
    const stored = await server.store.admin
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('idempotency_key', '=', 'register-once')
      .executeTakeFirstOrThrow()
    assert.ok(!stored.response_body?.includes(created.secret.slice('whsec_'.length)))
    // A replayed deletion answers 204 again.
    const deleteHeaders = { 'idempotency-key': 'delete-once' }
    assert.equal(
      (await server.request(`/v1/webhooks/${created.id}`, { method: 'DELETE', headers: deleteHeaders })).status,
      204,
    )
    const again = await server.request(`/v1/webhooks/${created.id}`, { method: 'DELETE', headers: deleteHeaders })
    assert.equal(again.status, 204)
    assert.equal(again.headers.get('idempotent-replayed'), 'true')
    assert.equal(await again.text(), '')
  })

  it("answers 404 for a retry of a deleted endpoint's delivery, and leaves the delivery as it was", async () => {
    // A deleted endpoint's deliveries stay in the database until the purge removes them: a retry must not find them.
    const webhook = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/deleted' })
    const finished = '2026-05-01T08:00:00.000Z'
    const { id } = await server.store.admin
      .insertInto('webhook_deliveries')
      .values({
        endpoint_id: webhook.id,
        event_id: 1,
        status: 'failed',
        attempts: 1,
        due_at: null,
        lease_token: null,
        created_at: finished,
        finished_at: finished,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    assert.equal((await server.request(`/v1/webhooks/${webhook.id}`, { method: 'DELETE' })).status, 204)
    await assertError(await server.request(`/v1/webhooks/${webhook.id}/deliveries/${id}/retry`, { method: 'POST' }), {
      status: 404,
      code: 'not_found',
      message: `No webhook has id ${webhook.id}.`,
    })
    const stored = await server.store.admin
      .selectFrom('webhook_deliveries')
      .select(['status', 'due_at', 'finished_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    assert.deepEqual(stored, { status: 'failed', due_at: null, finished_at: finished })
  })

  it('answers 404 for a delivery that does not exist, and 405 for other methods', async () => {
    const webhook = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/missing' })
    await assertError(await server.request(`/v1/webhooks/${webhook.id}/deliveries/987654/retry`, { method: 'POST' }), {
      status: 404,
      code: 'not_found',
      message: 'No delivery has id 987654.',
    })
    await assertError(await server.request('/v1/webhooks/987654/deliveries/1/retry', { method: 'POST' }), {
      status: 404,
      code: 'not_found',
      message: 'No webhook has id 987654.',
    })
    await assertError(
      await server.request('/v1/webhooks', { method: 'PUT' }),
      {
        status: 405,
        code: 'method_not_allowed',
        message: 'PUT is not allowed on this resource; allowed: GET, POST, HEAD.',
      },
      { allow: 'GET, POST, HEAD' },
    )
  })
})

describe(`the key that encrypts webhook secrets on ${TEST_STORE}`, () => {
  const WARNING =
    'WEBHOOK_SECRET_KEY is not set: webhook signing secrets are encrypted with a key kept in the same database'
  const warnings = (server: TestServer) => server.logs.filter((line) => line.includes(WARNING)).length

  it('unset: says nothing until webhooks are used, then warns once and keeps a generated key in the \
database', async () => {
    const server = await startTestServer({ webhookNetwork: NO_NETWORK })
    try {
      assert.equal(warnings(server), 0)
      const first = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/one' })
      await registerWebhook(server, undefined, { url: 'https://hooks.example.com/two' })
      assert.equal(warnings(server), 1)
      const stored = await server.store.admin
        .selectFrom('service_secrets')
        .select('value')
        .where('name', '=', 'webhook-secret-key')
        .executeTakeFirstOrThrow()
      const [row] = await server.store.admin
        .selectFrom('webhook_endpoints')
        .select('secret')
        .where('id', '=', first.id)
        .execute()
      assert.equal(row?.secret.split('.')[1], keyId(Buffer.from(stored.value, 'hex')))
    } finally {
      await server.close()
    }
  })

  it('set: seals with WEBHOOK_SECRET_KEY, keeps no key in the database and does not warn', async () => {
    const key = randomBytes(32)
    const server = await startTestServer({
      env: { WEBHOOK_SECRET_KEY: key.toString('hex') },
      webhookNetwork: NO_NETWORK,
    })
    try {
      const webhook = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/configured' })
      assert.equal(warnings(server), 0)
      const [row] = await server.store.admin
        .selectFrom('webhook_endpoints')
        .select('secret')
        .where('id', '=', webhook.id)
        .execute()
      assert.equal(row?.secret.split('.')[1], keyId(key))
      assert.equal(
        await server.store.admin
          .selectFrom('service_secrets')
          .select('name')
          .where('name', '=', 'webhook-secret-key')
          .executeTakeFirst(),
        undefined,
      )
    } finally {
      await server.close()
    }
  })
})

describe(`the delivery log's retention on ${TEST_STORE}`, () => {
  it('purges finished deliveries older than the retention, and those of deleted endpoints of any age, with their \
attempts; keeps the rest', async () => {
    const server = await startTestServer({ webhookNetwork: NO_NETWORK })
    try {
      const webhook = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/retention' })
      // Disabled, so that no instance attempts the pending rows made up below.
      assert.equal(
        (await server.request(`/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: { status: 'disabled' } })).status,
        200,
      )
      const day = 86_400_000
      const now = Date.now()
      const iso = (ms: number) => new Date(ms).toISOString()
      const delivery = (
        endpointId: number,
        eventId: number,
        status: 'pending' | 'succeeded' | 'failed',
        ageDays: number,
      ) => ({
        endpoint_id: endpointId,
        event_id: eventId,
        status,
        attempts: 1,
        lease_token: null,
        created_at: iso(now - ageDays * day),
        due_at: status === 'pending' ? now - ageDays * day : null,
        finished_at: status === 'pending' ? null : iso(now - ageDays * day),
      })
      const rows = await server.store.admin
        .insertInto('webhook_deliveries')
        .values([
          delivery(webhook.id, 1, 'succeeded', 31),
          delivery(webhook.id, 2, 'failed', 40),
          delivery(webhook.id, 3, 'succeeded', 29),
          delivery(webhook.id, 4, 'pending', 45),
          delivery(987_654, 5, 'pending', 31),
          delivery(987_654, 6, 'pending', 1),
        ])
        .returning(['id', 'event_id'])
        .execute()
      await server.store.admin
        .insertInto('webhook_attempts')
        .values(
          rows.map((row) => ({
            delivery_id: row.id,
            attempt: 1,
            started_at: iso(now),
            duration_ms: 1,
            outcome: 'succeeded' as const,
            response_status: 204,
            error: null,
            response_body: null,
          })),
        )
        .execute()
      assert.equal(await purgeOldDeliveries(server.store, 30, now), 4)
      const kept = await server.store.admin
        .selectFrom('webhook_deliveries')
        .select('event_id')
        .orderBy('event_id')
        .execute()
      assert.deepEqual(
        kept.map((row) => Number(row.event_id)),
        [3, 4],
      )
      // The attempts of the deliveries kept, and only theirs.
      const attempts = await server.store.admin
        .selectFrom('webhook_attempts')
        .select('delivery_id')
        .orderBy('delivery_id')
        .execute()
      assert.deepEqual(
        attempts.map((row) => Number(row.delivery_id)),
        rows.filter((row) => [3, 4].includes(Number(row.event_id))).map((row) => Number(row.id)),
      )
    } finally {
      await server.close()
    }
  })
})

describe(
  `deleting an endpoint while its deliveries are being recorded on ${TEST_STORE}`,
  { skip: TEST_STORE === 'sqlite' ? 'SQLite runs one write transaction at a time' : false },
  () => {
    it('does not wait on the delivery rows another transaction holds; the purge removes them afterwards', async () => {
      const server = await startTestServer({ webhookNetwork: NO_NETWORK })
      try {
        const webhook = await registerWebhook(server, undefined, { url: 'https://hooks.example.com/deleted' })
        // Disabled, so that no instance attempts the rows made up below.
        const disabled = await server.request(`/v1/webhooks/${webhook.id}`, {
          method: 'PATCH',
          json: { status: 'disabled' },
        })
        assert.equal(disabled.status, 200)
        const now = new Date().toISOString()
        await server.store.admin
          .insertInto('webhook_deliveries')
          .values(
            [1, 2, 3].map((eventId) => ({
              endpoint_id: webhook.id,
              event_id: eventId,
              status: 'pending' as const,
              attempts: 1,
              lease_token: null,
              created_at: now,
              due_at: Date.now(),
              finished_at: null,
            })),
          )
          .execute()
        // As the delivery worker recording attempts does: the endpoint's delivery rows locked by an update, in a
        // transaction still open while the endpoint is deleted. Deleting the rows too waited here (and deadlocked
        // once the worker then waited on a row the deletion held).
        await server.store.admin.transaction().execute(async (trx) => {
          await trx
            .updateTable('webhook_deliveries')
            .set((eb) => ({ attempts: eb('attempts', '+', 0) }))
            .where('endpoint_id', '=', webhook.id)
            .execute()
          const deleted = await server.request(`/v1/webhooks/${webhook.id}`, {
            method: 'DELETE',
            signal: AbortSignal.timeout(10_000),
          })
          assert.equal(deleted.status, 204)
        })
        await assertError(await server.request(`/v1/webhooks/${webhook.id}/deliveries`), {
          status: 404,
          code: 'not_found',
          message: `No webhook has id ${webhook.id}.`,
        })
        assert.equal(await purgeOldDeliveries(server.store, 30), 3)
        const left = await server.store.admin
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('endpoint_id', '=', webhook.id)
          .execute()
        assert.deepEqual(left, [])
      } finally {
        await server.close()
      }
    })
  },
)
