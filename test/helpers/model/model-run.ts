// Sends the model's steps to the service and checks each answer exactly: status, body, ETag, Location and
// Idempotent-Replayed. It also keeps every ETag seen with the representation it came with: one tag must never
// stand for two representations.
import assert from 'node:assert/strict'
import type { ModelRequest } from './idempotency-model.js'
import type { Step } from './model-steps.js'

/** Sends one request (the step's number picks the instance when there are several). */
export type Send = (step: number, request: ModelRequest) => Promise<Response>

/**
 * Every ETag seen, with the representation (JSON text) it was given with, by resource: a tag distinguishes the
 * versions of one resource (RFC 9110 section 8.8.3), so pet 6 and category 6 may both be at "6.1".
 */
export class EtagLog {
  private readonly seen = new Map<string, { representation: string; where: string }>()
  count = 0

  /** `path`: the resource's (its Location for a create), not necessarily the request's. */
  note(tag: string, path: string, body: unknown, where: string): void {
    const representation = JSON.stringify(body)
    const earlier = this.seen.get(`${path} ${tag}`)
    if (earlier === undefined) this.seen.set(`${path} ${tag}`, { representation, where })
    else
      assert.equal(
        representation,
        earlier.representation,
        `${where}: ETag ${tag} of ${path} was given for two representations; first at ${earlier.where}`,
      )
    this.count += 1
  }
}

/** Sends `request` with the API key of its client (`keys[request.client ?? 0]`). */
/**
 * The text of each first answer to a request with an Idempotency-Key, by API key and key: a replay must repeat it
 * byte for byte (decisions.md).
 */
export class FirstAnswers {
  private readonly texts = new Map<string, string>()

  check(request: ModelRequest, status: number, replayed: boolean, text: string, where: string): void {
    const key = request.headers?.['idempotency-key']
    if (key === undefined || status === 400 || status === 422) return
    const slot = `${request.client ?? 0} ${key}`
    if (replayed) assert.equal(text, this.texts.get(slot), `${where}: a replay repeats the first answer's bytes`)
    else this.texts.set(slot, text)
  }
}

export function sendJson(baseUrl: string, keys: readonly string[], request: ModelRequest): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${keys[request.client ?? 0]}`, ...request.headers }
  if (request.body !== undefined) headers['content-type'] ??= 'application/json'
  return fetch(baseUrl + request.path, {
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  })
}

export function describeStep(seed: number, index: number, step: Step): string {
  const { method, path, body, headers } = step.request
  return (
    `seed ${seed}, step ${index} (${step.operation}): ${method} ${path}${step.request.client ? ' (second key)' : ''}` +
    `${headers ? ` ${JSON.stringify(headers)}` : ''}${body === undefined ? '' : ` ${JSON.stringify(body)}`}`
  )
}

/** What a run has seen so far, for the checks that span steps. */
export interface Seen {
  etags: EtagLog
  firstAnswers: FirstAnswers
}

export async function runStep(send: Send, seed: number, index: number, step: Step, seen: Seen): Promise<void> {
  const response = await send(index, step.request)
  const text = await response.text()
  const where = describeStep(seed, index, step)
  const { expected } = step
  assert.equal(response.status, expected.status, `${where}: status; body ${text}`)
  if (step.check) return step.check(text, response, where)
  if (expected.body === undefined) assert.equal(text, '', `${where}: no body`)
  else assert.deepEqual(JSON.parse(text), expected.body, `${where}: body`)
  assert.equal(response.headers.get('etag'), expected.etag ?? null, `${where}: ETag`)
  const location = response.headers.get('location')
  assert.equal(location === null ? null : new URL(location).pathname, expected.location ?? null, `${where}: Location`)
  assert.equal(response.headers.get('idempotent-replayed'), expected.replayed ? 'true' : null, `${where}: replayed`)
  if (expected.etag !== undefined && expected.status < 300)
    seen.etags.note(expected.etag, expected.location ?? step.request.path, expected.body, where)
  seen.firstAnswers.check(step.request, response.status, expected.replayed === true, text, where)
}
