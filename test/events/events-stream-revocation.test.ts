// An open event stream, and a waiting long poll, hold their key to the same rule as a new request: revoked or
// expired, the key gets nothing more. The stream asks before it writes (here before every write; at most once a
// second by default), says why in a last comment line and ends; the client's reconnection is then refused like any
// request with that key. The long poll asks before it answers, and answers 401.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { KEY_NO_LONGER_VALID } from '../../src/events/event-stream.js'
import { issueApiKey, revokeKey } from '../../src/keys/issue-key.js'
import { assertError } from '../helpers/error-assert.js'
import { openStream, parseFrame, type StreamReader } from '../helpers/event-stream.js'
import { barrier, waitForMetric } from '../helpers/events.js'
import { addPet } from '../helpers/orders.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { TEST_STORE } from '../helpers/store.js'

const invalidKey = {
  status: 401,
  code: 'unauthorized',
  message: 'The API key is not valid.',
}

/** The frames left until the server ends the stream: comments and events, as they came. */
async function framesUntilEnd(stream: StreamReader): Promise<string[]> {
  const frames: string[] = []
  for (;;) {
    const frame = await stream.nextFrame().catch((error: unknown) => {
      if (error instanceof Error && error.message.startsWith('the stream ended')) return undefined
      throw error
    })
    if (frame === undefined) return frames
    frames.push(frame)
  }
}

describe(`an open event stream whose key stops being valid, on ${TEST_STORE}`, () => {
  let server: TestServer

  before(async () => {
    // Asked before every write, so that the event right after a revocation is the one that must not be sent.
    server = await startTestServer({ tuning: { eventHeartbeatSeconds: 1, eventStreamKeyRecheckMs: 0 } })
  })
  after(() => server.close())

  it('ends before the next event once the key is revoked, and the reconnection is refused', async () => {
    const start = await barrier((path, init) => server.request(path, init))
    const { key, row } = await issueApiKey(server.store, 'revoked while streaming', { scopes: ['events:read'] })
    const headers = { authorization: `Bearer ${key}` }
    const stream = await openStream(`${server.baseUrl}/v1/events/stream?after=${start}`, headers)
    assert.equal(await stream.nextFrame(), `: events after ${start}`)
    const before = await addPet(server, 'available', 'Seen')
    const [seen] = await stream.nextEvents(1)
    assert.deepEqual(JSON.parse(seen?.data ?? '').data, { pet: before })

    await revokeKey(server.store, row.id, new Date().toISOString())
    await addPet(server, 'available', 'Not seen')
    const rest = await framesUntilEnd(stream)
    // Heartbeats may come before the check that ends it; no event does.
    assert.deepEqual(
      rest.filter((frame) => parseFrame(frame) !== undefined),
      [],
    )
    assert.equal(rest.at(-1), KEY_NO_LONGER_VALID.trimEnd())
    await assertError(await fetch(`${server.baseUrl}/v1/events/stream?after=${seen?.id}`, { headers }), invalidKey, {
      'www-authenticate':
        'Bearer realm="petstore", error="invalid_token", error_description="The API key is not valid"',
    })
  })

  it('ends at the first heartbeat after the key expires, with no event written', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString()
    const { key } = await issueApiKey(server.store, 'expiring while streaming', { scopes: ['events:read'], expiresAt })
    const start = await barrier((path, init) => server.request(path, init))
    const stream = await openStream(`${server.baseUrl}/v1/events/stream?after=${start}`, {
      authorization: `Bearer ${key}`,
    })
    const frames = await framesUntilEnd(stream)
    assert.ok(Date.now() >= Date.parse(expiresAt), 'the stream ended before the key expired')
    assert.equal(frames[0], `: events after ${start}`)
    assert.equal(frames.at(-1), KEY_NO_LONGER_VALID.trimEnd())
    assert.deepEqual(
      frames.slice(1, -1).filter((frame) => frame !== ': heartbeat'),
      [],
    )
  })

  it('answers a long poll whose key is revoked while it waits with 401, not with the events committed \
since', async () => {
    const start = await barrier((path, init) => server.request(path, init))
    const { key, row } = await issueApiKey(server.store, 'revoked while polling', { scopes: ['events:read'] })
    const waiting = fetch(`${server.baseUrl}/v1/events?after=${start}&wait=30`, {
      headers: { authorization: `Bearer ${key}` },
    })
    // Revoked once the long poll is known to wait (the gauge counts it), so that the key was valid when it began.
    await waitForMetric(server, 'petstore_event_long_polls_waiting', 1)
    await revokeKey(server.store, row.id, new Date().toISOString())
    await addPet(server, 'available', 'Committed after the revocation')
    await assertError(await waiting, invalidKey, {
      'www-authenticate':
        'Bearer realm="petstore", error="invalid_token", error_description="The API key is not valid"',
    })
  })

  it('keeps streaming for a key that stays valid: heartbeats go on', async () => {
    const { key } = await issueApiKey(server.store, 'still valid', { scopes: ['events:read'] })
    const start = await barrier((path, init) => server.request(path, init))
    const stream = await openStream(`${server.baseUrl}/v1/events/stream?after=${start}`, {
      authorization: `Bearer ${key}`,
    })
    try {
      assert.equal(await stream.nextFrame(), `: events after ${start}`)
      assert.equal(await stream.nextFrame(), ': heartbeat')
      assert.equal(await stream.nextFrame(), ': heartbeat')
    } finally {
      await stream.close()
    }
  })
})
