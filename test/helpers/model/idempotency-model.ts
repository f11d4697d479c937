// Idempotent retries in the reference model, as decisions.md ("Idempotent retries") has them: a key used again with
// the same request (operation, path, body as JSON values after defaults, If-Match and If-None-Match) gets the stored
// answer with Idempotent-Replayed: true and changes nothing; with another request, 422 and nothing changes.
import type { Random } from './seeded-random.js'
import { errorAnswer, type Answer } from './shop-state.js'

export interface ModelRequest {
  method: string
  path: string
  /** Sent as JSON. */
  body?: unknown
  headers?: Record<string, string>
  /** Which API key sends it: the first (0, the default) or the second (1). */
  client?: number
}

/** What a request carrying an Idempotency-Key was answered: the answer every retry of it gets. */
interface KeyedRequest {
  request: ModelRequest
  fingerprint: string
  answer: Answer
  /** The request's change made on the model as it is now: what the same request from another API key does. */
  apply: () => Answer
}

const IDEMPOTENCY_KEY_REUSED = errorAnswer(
  422,
  'idempotency_key_reused',
  'This Idempotency-Key was already used for a different request (another operation, resource, body or ' +
    'condition); send a new key for a new request.',
)

/** The defaults the schema fills in, which make no difference to "the same body". */
function withDefaults(request: ModelRequest): unknown {
  if (request.method !== 'POST' || typeof request.body !== 'object') return request.body
  if (request.path === '/v1/pets') return { status: 'available', ...request.body }
  if (request.path === '/v1/store/orders') return { quantity: 1, ...request.body }
  return request.body
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))
  return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonical(entry)}`).join(',')}}`
}

function fingerprint(request: ModelRequest): string {
  const conditions = [request.headers?.['if-match'], request.headers?.['if-none-match']]
  return canonical([request.method, request.path, withDefaults(request) ?? null, ...conditions.map((c) => c ?? null)])
}

/**
 * The same request written otherwise: the body's keys in reverse order and its defaults written out, a merge patch
 * sent as the other media type a PATCH takes.
 */
function rewritten(request: ModelRequest): ModelRequest {
  const body = withDefaults(request)
  const headers = { ...request.headers }
  if (request.method === 'PATCH')
    headers['content-type'] =
      headers['content-type'] === 'application/json' ? 'application/merge-patch+json' : 'application/json'
  if (body === null || typeof body !== 'object') return { ...request, headers }
  return { ...request, headers, body: Object.fromEntries(Object.entries(body).reverse()) }
}

/** A body of the same operation with one value changed: a name, an order's quantity, a categoryId or a status. */
function otherBody(body: Record<string, unknown>): Record<string, unknown> {
  if ('name' in body) return { ...body, name: `${String(body.name)} again` }
  if ('petId' in body) return { ...body, quantity: body.quantity === 100 ? 99 : Number(body.quantity ?? 1) + 1 }
  if ('categoryId' in body) return { ...body, categoryId: Number(body.categoryId) + 1 }
  return { ...body, status: body.status === 'sold' ? 'available' : 'sold' }
}

/** Another request: another body, another condition, or (without a body) another resource. */
function otherRequest(request: ModelRequest, random: Random): ModelRequest {
  const { body, path, headers = {} } = request
  // Only the operations with an ETag take If-Match (decisions.md); the others answer it 400.
  const takesIfMatch = /^\/v1\/(pets|categories)\/\d+$/.test(path) && request.method !== 'GET'
  if (takesIfMatch && random.chance(0.3)) {
    const ifMatch = headers['if-match'] === '*' ? '"1.1"' : '*'
    return { ...request, headers: { ...headers, 'if-match': ifMatch } }
  }
  return body !== null && typeof body === 'object'
    ? { ...request, body: otherBody(body as Record<string, unknown>) }
    : { ...request, path: path.replace(/\d+(?=\D*$)/, (id) => String(Number(id) + 1)) }
}

/** Keys as clients write them: plain, in the draft's quoted form, with other visible ASCII characters. */
const KEY_FORMS = [(n: number) => `model-key-${n}`, (n: number) => `"model-key-${n}"`, (n: number) => `~!{${n}}#$`]

const slot = (client: number | undefined, key: string) => `${client ?? 0} ${key}`

export class IdempotencyModel {
  private readonly keys = new Map<string, KeyedRequest>()
  /** Keys sent only with requests the schema refused: refused before the key is looked at, they are still free. */
  private readonly unused: string[] = []
  private issued = 0

  /** A key not used yet (now and then one a refused request carried), added to the headers of `request`. */
  withNewKey(request: ModelRequest, random: Random): ModelRequest {
    const key =
      this.unused.length > 0 && random.chance(0.5) ? this.unused.shift() : random.pick(KEY_FORMS)(++this.issued)
    return { ...request, headers: { ...request.headers, 'idempotency-key': key as string } }
  }

  /** A request the schema refuses, with a key of its own: the key stays free for a request to come. */
  withUnusedKey(request: ModelRequest, random: Random): ModelRequest {
    const key = random.pick(KEY_FORMS)(++this.issued)
    this.unused.push(key)
    return { ...request, headers: { ...request.headers, 'idempotency-key': key } }
  }

  /** Keeps the answer of the first request with its key (from its API key). */
  remember(request: ModelRequest, answer: Answer, apply: () => Answer): void {
    const key = request.headers?.['idempotency-key']
    if (key === undefined) throw new Error('a request without an Idempotency-Key')
    this.keys.set(slot(request.client, key), { request, fingerprint: fingerprint(request), answer, apply })
  }

  get size(): number {
    return this.keys.size
  }

  /** The same request again under one of the keys used: its stored answer, replayed. */
  retrySame(random: Random): { request: ModelRequest; expected: Answer } {
    const kept = random.pick([...this.keys.values()])
    const request = random.chance(0.5) ? rewritten(kept.request) : kept.request
    if (fingerprint(request) !== kept.fingerprint) throw new Error('a rewritten request must be the same request')
    return { request, expected: { ...kept.answer, replayed: true } }
  }

  /** Another request under one of the keys used: 422. */
  retryOther(random: Random): { request: ModelRequest; expected: Answer } {
    const kept = random.pick([...this.keys.values()])
    const request = otherRequest(kept.request, random)
    if (fingerprint(request) === kept.fingerprint) throw new Error('the other request must differ')
    return { request, expected: IDEMPOTENCY_KEY_REUSED }
  }

  /**
   * The same request with the same Idempotency-Key from the other API key: a key belongs to the API key that sent
   * it, so this is a request of its own, made now (or a retry of the other API key's own use of that key).
   */
  fromOtherClient(random: Random): { request: ModelRequest; expected: Answer } {
    const kept = random.pick([...this.keys.values()])
    const request = { ...kept.request, client: 1 - (kept.request.client ?? 0) }
    const own = this.keys.get(slot(request.client, request.headers?.['idempotency-key'] ?? ''))
    if (own !== undefined)
      return {
        request,
        expected: own.fingerprint === kept.fingerprint ? { ...own.answer, replayed: true } : IDEMPOTENCY_KEY_REUSED,
      }
    const expected = kept.apply()
    this.remember(request, expected, kept.apply)
    return { request, expected }
  }
}
