// Idempotent POST, PATCH and DELETE requests (draft-ietf-httpapi-idempotency-key-header), wrapped around a
// service call by the HTTP layer. This module opens the unit of work the service changes in (db/unit-of-work.ts)
// and adds the stored answer to it. With an Idempotency-Key header a request runs in two steps, both durable
// before anything depends on them:
//   1. a short transaction claims the key: it inserts it as in_flight (visible to every other transaction and
//      process from then on), or finds it taken and decides: a different request → 422; a completed one → its
//      stored response is replayed; one still running → 409; one expired, or abandoned by a dead process (its
//      lease ran out) → taken over;
//   2. the service makes its change in a unit of work, and its response is stored in the same ONE transaction,
//      which commits only if this request still holds the key: an acknowledged effect and its stored response
//      are durable together, or neither is.
// Without the header the change is all of its unit of work (on PostgreSQL a one-statement change goes alone).
// A client error the effect answers (404, 409) is stored and replayed as well (a retry is the same request and
// gets the same answer); a server error (500, 503), a conflict lost to other requests' changes (which says
// Retry) or a crash is not: the key is released, or its lease runs out, and a retry runs the request afresh.
import { randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { DataAccess, Writer } from '../db/database.js'
import { runUnitOfWork, type UnitOfWork } from '../db/unit-of-work.js'
import { Contended } from '../domain/errors.js'
import { ApiError, errorBody, knownApiError } from '../http/errors/errors.js'
import { withJsonText } from '../http/json/prepared-json.js'
import { redactKeys } from '../http/request/log-url.js'
import { requestFingerprint } from './fingerprint.js'
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from './idempotency.schema.js'
import {
  completeKey,
  findKey,
  insertInFlightKey,
  releaseKey,
  storedResponseOf,
  takeOverKey,
  type Acquisition,
  type IdempotencyKeyOfApiKey,
  type StoredResponse,
} from './idempotency.repository.js'
import { MESSAGES } from '../http/errors/error-messages.js'

/** The HTTP answer to a service call's result. */
export interface Answer<Body> {
  status: number
  body: Body
  /** Headers that belong to the outcome (Location): a replay repeats them. */
  headers?: Record<string, string>
}

/** The service call: its change, in the unit of work it is given. */
export type ServiceCall<Result> = (uow: UnitOfWork) => Promise<Result>

/**
 * How a route's stored response bodies are kept: a response that shows a secret (a webhook's signing secret) is
 * stored encrypted, so that the idempotency records do not hand out in clear what the service keeps encrypted.
 */
export interface StoredBodyCodec {
  seal(body: string): Promise<string>
  open(stored: string): Promise<string>
}

export interface RunOptions {
  storedBody?: StoredBodyCodec
}

export interface IdempotencySettings {
  data: DataAccess
  /** How long a key is remembered after its response was stored. */
  ttlMs: number
  /** How long a running request holds its key before another may take it over as abandoned. */
  leaseMs: number
}

export interface Idempotency {
  /**
   * Makes the service call and answers with `answer(result)`. With an Idempotency-Key header the call runs at
   * most once per key; a retry gets the stored response. Returns the body for the handler to return.
   */
  run<Result, Body>(
    request: FastifyRequest,
    reply: FastifyReply,
    call: ServiceCall<Result>,
    answer: (result: Result) => Answer<Body>,
    options?: RunOptions,
  ): Promise<Body>
}

type Claim =
  | { outcome: 'acquired'; leaseToken: string }
  | { outcome: 'replay'; response: StoredResponse }
  | { outcome: 'mismatch' }
  | { outcome: 'in_flight' }

/** Rounds of "insert, else read and decide"; only a key deleted or taken over meanwhile needs a second one. */
const CLAIM_ATTEMPTS = 3
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** Thrown inside the effect's transaction to roll it back: another request took the key over meanwhile. */
class KeyLost extends Error {}

function inFlight(): ApiError {
  return new ApiError('idempotency_key_in_flight', MESSAGES.idempotencyKeyInFlight(), {
    headers: { 'retry-after': '1' },
  })
}

const iso = (milliseconds: number) => new Date(milliseconds).toISOString()

/** The body as the route's response schema serialises it for that status: the exact text a replay repeats. */
function serialise(reply: FastifyReply, status: number, body: unknown): string {
  const serialiser = reply.getSerializationFunction(String(status))
  return serialiser ? serialiser(body as Record<string, unknown>) : JSON.stringify(body)
}

function send<Body>(reply: FastifyReply, response: StoredResponse, replayed: boolean): Body {
  reply.code(response.status).headers(response.headers)
  if (replayed) reply.header(REPLAYED_HEADER, 'true')
  // A response without a body (204) is stored as empty text, and sent as no body at all.
  if (response.body === '') return undefined as Body
  reply.type(JSON_CONTENT_TYPE)
  // The stored text is what this route's serialiser made of the body; it is sent as it is, the first
  // response's exact bytes.
  const body: Body = JSON.parse(response.body)
  return withJsonText(body as Body & object, response.body)
}

export function createIdempotency({ data, ttlMs, leaseMs }: IdempotencySettings): Idempotency {
  function acquisition(fingerprint: string): Acquisition {
    const now = Date.now()
    return {
      fingerprint,
      leaseToken: randomUUID(),
      now: iso(now),
      leasedUntil: iso(now + leaseMs),
      expiresAt: iso(now + ttlMs),
    }
  }

  async function claim(id: IdempotencyKeyOfApiKey, fingerprint: string): Promise<Claim> {
    return data.transaction(async (trx) => {
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        const fresh = acquisition(fingerprint)
        if (await insertInFlightKey(trx, id, fresh)) return { outcome: 'acquired', leaseToken: fresh.leaseToken }
        const row = await findKey(trx, id)
        if (!row) continue // released by its holder between the two statements
        // An expired key is forgotten, whatever it held; ISO instants in UTC compare as text.
        if (row.expires_at > fresh.now) {
          if (row.request_fingerprint !== fingerprint) return { outcome: 'mismatch' }
          const stored = storedResponseOf(row)
          if (stored) return { outcome: 'replay', response: stored }
          if ((row.leased_until ?? '') > fresh.now) return { outcome: 'in_flight' }
        }
        if (await takeOverKey(trx, id, row, fresh)) return { outcome: 'acquired', leaseToken: fresh.leaseToken }
      }
      return { outcome: 'in_flight' }
    })
  }

  /** Best effort: if it fails (database down), the key's lease runs out instead. */
  async function bestEffort(
    request: FastifyRequest,
    what: string,
    work: (trx: Writer) => Promise<unknown>,
  ): Promise<void> {
    try {
      await data.transaction(work)
    } catch (error) {
      request.log.warn({ err: error }, `could not ${what} the idempotency key`)
    }
  }

  async function execute<Result, Body>(
    request: FastifyRequest,
    reply: FastifyReply,
    id: IdempotencyKeyOfApiKey,
    leaseToken: string,
    call: ServiceCall<Result>,
    answer: (result: Result) => Answer<Body>,
    storedBody: StoredBodyCodec | undefined,
  ): Promise<Body> {
    const sealed = async (stored: StoredResponse) =>
      storedBody ? { ...stored, body: await storedBody.seal(stored.body) } : stored
    let response: StoredResponse
    try {
      response = await runUnitOfWork(data, async (uow) => {
        const { status, body, headers = {} } = answer(await call(uow))
        const stored = { status, body: body === undefined ? '' : serialise(reply, status, body), headers }
        if (!(await completeKey(uow.trx, id, leaseToken, await sealed(stored), iso(Date.now() + ttlMs))))
          throw new KeyLost()
        return stored
      })
    } catch (error) {
      if (error instanceof KeyLost) throw inFlight()
      const apiError = knownApiError(error, request.headers['if-match'])
      if (apiError && apiError.statusCode < 500 && !(error instanceof Contended)) {
        // The service's transaction rolled back: nothing changed. Its answer is stored on its own, so that a
        // retry gets the same answer rather than a second chance at the effect.
        const body = serialise(reply, apiError.statusCode, errorBody(apiError.code, apiError.message, apiError.details))
        const stored = { status: apiError.statusCode, body, headers: apiError.headers }
        await bestEffort(request, 'store the response of', async (trx) =>
          completeKey(trx, id, leaseToken, await sealed(stored), iso(Date.now() + ttlMs)),
        )
      } else {
        await bestEffort(request, 'release', (trx) => releaseKey(trx, id, leaseToken))
      }
      throw error
    }
    return send(reply, response, false)
  }

  return {
    async run(request, reply, call, answer, { storedBody } = {}) {
      const key = request.headers[IDEMPOTENCY_KEY_HEADER]
      if (typeof key !== 'string') {
        const result = await runUnitOfWork(data, call, { changeEndsTransaction: true })
        const { status, body, headers = {} } = answer(result)
        reply.code(status).headers(headers)
        return body
      }
      if (!request.principal) throw new Error('an Idempotency-Key needs an authenticated request')
      const id = { keyId: request.principal.keyId, idempotencyKey: key }
      const fingerprint = requestFingerprint({
        method: request.method,
        route: request.routeOptions.url ?? '',
        params: request.params,
        body: request.body,
        ifMatch: request.headers['if-match'],
        ifNoneMatch: request.headers['if-none-match'],
      })
      const claimed = await claim(id, fingerprint)
      switch (claimed.outcome) {
        case 'acquired':
          return execute(request, reply, id, claimed.leaseToken, call, answer, storedBody)
        case 'replay': {
          request.log.info(
            // The client's text: one that is a key of this service (pasted in the wrong header) is not logged.
            { idempotencyKey: redactKeys(key), status: claimed.response.status },
            'replayed the stored response of an idempotent request',
          )
          const { response } = claimed
          return send(reply, storedBody ? { ...response, body: await storedBody.open(response.body) } : response, true)
        }
        case 'mismatch':
          throw new ApiError('idempotency_key_reused', MESSAGES.idempotencyKeyReused())
        case 'in_flight':
          throw inFlight()
      }
    },
  }
}
