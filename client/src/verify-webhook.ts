// Checks that a webhook delivery comes from the service (Standard Webhooks: an HMAC-SHA256 signature over id,
// timestamp and body, with the endpoint's secret, and a timestamp within five minutes against replays).
import { Webhook } from 'standardwebhooks'
import type { Event } from './schemas.js'

/**
 * A delivery that is not authentic (or not well-formed). Our own class, not the library's: its declarations
 * need Node.js types, which a browser project does not have.
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError'
}

/**
 * Headers as a Fetch `Headers` (the global one, or a polyfill's, or another realm's: anything with its `get`), or as a
 * plain object (Node's `request.headers`, Express, …).
 */
export type WebhookHeaders = Pick<Headers, 'get'> | Record<string, string | string[] | undefined>

/**
 * The delivered event when the delivery is authentic; otherwise throws WebhookVerificationError.
 *
 * @param body The request body exactly as received (the raw text or bytes, not a re-serialised object).
 * @param headers The request's headers: `webhook-id`, `webhook-timestamp`, `webhook-signature` are read.
 * @param secret The endpoint's secret (`whsec_…`). During a rotation, the service signs with both secrets, so
 *   either one verifies.
 */
export function verifyWebhook(body: string | Uint8Array, headers: WebhookHeaders, secret: string): Event {
  const text = typeof body === 'string' ? body : new TextDecoder('utf-8').decode(body)
  try {
    return new Webhook(secret).verify(text, signatureHeaders(headers)) as Event
  } catch (error) {
    // The library's own errors, and what a malformed secret or body makes it throw.
    throw new WebhookVerificationError(error instanceof Error ? error.message : String(error), { cause: error })
  }
}

function signatureHeaders(headers: WebhookHeaders): Record<string, string> {
  const read = (name: string): string => {
    // By what it offers, not by class: a polyfill's or another realm's Headers is no instance of this global one.
    if (isFetchHeaders(headers)) return headers.get(name) ?? ''
    const value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]
    return Array.isArray(value) ? value.join(' ') : (value ?? '')
  }
  return {
    'webhook-id': read('webhook-id'),
    'webhook-timestamp': read('webhook-timestamp'),
    'webhook-signature': read('webhook-signature'),
  }
}

function isFetchHeaders(headers: WebhookHeaders): headers is Pick<Headers, 'get'> {
  return typeof headers.get === 'function'
}
