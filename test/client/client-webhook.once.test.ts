// verifyWebhook: accepts a delivery signed as Standard Webhooks signs it (the standardwebhooks library, as the
// service signs), with its headers as a Fetch Headers or as Node's object, and during a secret rotation; refuses
// a tampered body, a wrong secret, a replayed old timestamp and missing headers.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { verifyWebhook, WebhookVerificationError, type Event } from '../../client/src/index.js'

const secret = () => `whsec_${randomBytes(24).toString('base64')}`

const EVENT: Event = {
  id: 42,
  type: 'pet.created',
  timestamp: '2026-01-02T03:04:05.678Z',
  data: { pet: { id: 7, name: 'Rex', categoryId: 1, status: 'available' } },
}

function signed(body: string, secrets: string[], at = new Date()) {
  const id = `evt_${EVENT.id}`
  const signatures = secrets.map((key) => new Webhook(key).sign(id, at, body))
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  }
}

describe('verifyWebhook', () => {
  const body = JSON.stringify(EVENT)

  it('returns the event of an authentic delivery: headers as a plain object, as Fetch Headers, body as text \
or bytes', () => {
    const key = secret()
    const headers = signed(body, [key])
    assert.deepEqual(verifyWebhook(body, headers, key), EVENT)
    assert.deepEqual(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), key), EVENT)
    // Node's request.headers may hold a header's name in any case a proxy left it in.
    assert.deepEqual(
      verifyWebhook(
        body,
        {
          'Webhook-Id': headers['webhook-id'],
          'Webhook-Timestamp': headers['webhook-timestamp'],
          'Webhook-Signature': headers['webhook-signature'],
        },
        key,
      ),
      EVENT,
    )
  })

  it('reads a Headers that is not the global class (a fetch polyfill, another realm) by its get', () => {
    const key = secret()
    const headers = new Headers(signed(body, [key]))
    // What a polyfill's Headers offers (node-fetch, undici installed apart): the same methods, another class.
    const polyfill = { get: (name: string) => headers.get(name), has: (name: string) => headers.has(name) }
    assert.deepEqual(verifyWebhook(body, polyfill, key), EVENT)
  })

  it('accepts either secret while a rotation signs with both', () => {
    const previous = secret()
    const next = secret()
    const headers = signed(body, [next, previous])
    assert.deepEqual(verifyWebhook(body, headers, previous), EVENT)
    assert.deepEqual(verifyWebhook(body, headers, next), EVENT)
  })

  it('refuses a tampered body, a wrong secret, an old timestamp and missing headers', () => {
    const key = secret()
    const headers = signed(body, [key])
    assert.throws(() => verifyWebhook(body.replace('"Rex"', '"Max"'), headers, key), WebhookVerificationError)
    assert.throws(() => verifyWebhook(body, headers, secret()), WebhookVerificationError)
    assert.throws(() => verifyWebhook(body, { ...headers, 'webhook-id': 'evt_43' }, key), WebhookVerificationError)
    assert.throws(
      () => verifyWebhook(body, signed(body, [key], new Date(Date.now() - 10 * 60 * 1000)), key),
      WebhookVerificationError,
    )
    assert.throws(() => verifyWebhook(body, { 'webhook-id': headers['webhook-id'] }, key), WebhookVerificationError)
  })
})
