// What every group of methods shares: the typed openapi-fetch client, the transport, and how an answer becomes
// a value or a PetstoreError.
import type { Client } from 'openapi-fetch'
import { errorFromResponse } from './errors.js'
import type { paths } from './generated/petstore-v1.js'
import type { RetryPolicy } from './retry.js'
import type { Transport } from './transport.js'

export interface Context {
  api: Client<paths>
  transport: Transport
  retry: RetryPolicy
}

export interface CallOptions {
  /** Aborts the call, its retries and the waits between them. */
  signal?: AbortSignal
}

export interface WriteOptions extends CallOptions {
  /**
   * The Idempotency-Key to send; by default a new random UUID per call. Pass your own to make a call safe to
   * repeat across restarts of your program: the service answers a repeat with the first response for 24 hours.
   */
  idempotencyKey?: string
}

/** A page of a list and the cursor of the next one (undefined on the last page). */
export interface Page<Item> {
  items: Item[]
  nextCursor: string | undefined
}

/**
 * A random (version 4) UUID. crypto.randomUUID exists in Node 20 and in browsers only in secure contexts (https,
 * localhost); crypto.getRandomValues exists everywhere, so the UUID is made from its bytes when it is missing.
 */
export function newIdempotencyKey(): string {
  const { crypto } = globalThis
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  return uuidFromBytes(crypto.getRandomValues(new Uint8Array(16)))
}

/** RFC 9562 §5.4: the version (4) and variant (10) bits set in 16 random bytes. */
export function uuidFromBytes(bytes: Uint8Array): string {
  const octets = Array.from(bytes, (byte, index) => {
    const value = index === 6 ? (byte & 0x0f) | 0x40 : index === 8 ? (byte & 0x3f) | 0x80 : byte
    return value.toString(16).padStart(2, '0')
  }).join('')
  return [octets.slice(0, 8), octets.slice(8, 12), octets.slice(12, 16), octets.slice(16, 20), octets.slice(20)].join(
    '-',
  )
}

interface Answer<Data> {
  data?: Data
  error?: unknown
  response: Response
}

/** The data of a 2xx answer; otherwise the PetstoreError it stands for. */
export function dataOf<Data>(answer: Answer<Data>): Data {
  if (!answer.response.ok) throw errorFromResponse(answer.response, answer.error)
  return answer.data as Data
}

/** The ETag a pet's answer carries (the service always sends one with a pet). */
export function entityTagOf(response: Response): string {
  return response.headers.get('etag') ?? ''
}

/**
 * Every item of every page, one page at a time, following the cursor of `Link: rel="next"`. A cursor that is
 * empty or was already followed would loop for ever (a proxy rewriting links, a broken service): it is an error.
 */
export async function* everyItem<Item>(
  readPage: (cursor: string | undefined) => Promise<Page<Item>>,
): AsyncGenerator<Item, void, undefined> {
  const followed = new Set<string>()
  let cursor: string | undefined
  do {
    const page = await readPage(cursor)
    yield* page.items
    cursor = page.nextCursor
    if (cursor === undefined) return
    if (cursor === '' || followed.has(cursor))
      throw new Error(
        `The service answered a next page cursor that ${cursor === '' ? 'is empty' : 'repeats an earlier one'}; ` +
          'stopped paging.',
      )
    followed.add(cursor)
  } while (cursor !== undefined)
}
