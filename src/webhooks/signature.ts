// Standard Webhooks signing (https://www.standardwebhooks.com), done by its reference library so that receivers
// verify with any of its implementations. The id is the event's and stays the same on every retry, so a
// receiver de-duplicates by it; the timestamp and signatures are made afresh for each attempt.
import type { Webhook } from 'standardwebhooks'

/**
 * The signers of an endpoint (standardwebhooks' Webhook, made from a secret): during a rotation's overlap, the previous
 * one too.
 */
export interface Signers {
  current: Webhook
  previous: Webhook | undefined
}

/** The `webhook-id` of an event: the same for every delivery and retry of it. */
export function webhookId(eventId: number): string {
  return `evt_${eventId}`
}

/**
 * The three Standard Webhooks headers of one attempt: `webhook-signature` holds one `v1,…` per secret, space-separated.
 */
export function signatureHeaders(eventId: number, body: string, signers: Signers, now: Date): Record<string, string> {
  const id = webhookId(eventId)
  const signatures = [signers.current, signers.previous].flatMap((signer) =>
    signer === undefined ? [] : [signer.sign(id, now, body)],
  )
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  }
}
