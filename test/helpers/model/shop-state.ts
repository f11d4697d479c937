// The reference model of a shop: what the service should hold after a sequence of requests, written from the docs
// (decisions.md, orders.md, categories.md, events.md) and not from the service's code, and what each request should
// be answered. pet-model.ts, order-model.ts and category-model.ts make the transitions; this file holds the state.

// The API's Pet and Order, as the order tests already read them.
import type { Order, Pet } from '../orders.js'

export type { Order, Pet }

export interface Category {
  id: number
  name: string
}

/** A resource as kept: its representation, its version (the ETag's second part), whether it is deleted. */
export interface Versioned<T> {
  value: T
  version: number
  deleted: boolean
}

/** What the service must answer: status, body (absent: no body), ETag and Location (absent: no such header). */
export interface Answer {
  status: number
  body?: unknown
  etag?: string
  /** The path of Location (a replay may name another instance's origin). */
  location?: string
  /** Idempotent-Replayed: true. */
  replayed?: boolean
}

export interface ModelEvent {
  type: string
  data: Record<string, unknown>
}

export interface ShopState {
  pets: Map<number, Versioned<Pet>>
  orders: Map<number, Order>
  /** Categories that exist now (a deleted one is removed). */
  categories: Map<number, Versioned<Category>>
  /** The largest category id POST or PUT ever gave. */
  lastCategoryIdHandedOut: number
  /** New categories start one above it; a delete raises it to the deleted category's version. */
  categoryVersionFloor: number
  /** Every committed change's event, in commit order. */
  events: ModelEvent[]
}

export function emptyShop(): ShopState {
  return {
    pets: new Map(),
    orders: new Map(),
    categories: new Map(),
    lastCategoryIdHandedOut: 0,
    categoryVersionFloor: 0,
    events: [],
  }
}

export const tagOf = (id: number, version: number) => `"${id}.${version}"`

export function errorAnswer(
  status: number,
  code: string,
  message: string,
  extra: { etag?: string; details?: { path: string; message: string }[] } = {},
): Answer {
  const body = { code, message, status, ...(extra.details ? { details: extra.details } : {}) }
  return { status, body, ...(extra.etag === undefined ? {} : { etag: extra.etag }) }
}

/** The 400 of a request the schema refuses for one problem. */
export const invalid = (path: string, message: string): Answer =>
  errorAnswer(400, 'invalid_request', `Invalid request: ${path} ${message}`, { details: [{ path, message }] })

/**
 * What an If-Match value decides for a resource whose current ETag is `tag` (RFC 9110 section 13.1.1, strong
 * comparison): `*` or the tag listed holds; the tag listed only as weak (W/"…") fails, and is said to.
 */
export function ifMatchDecision(header: string, tag: string): 'holds' | 'fails' | 'weak' {
  if (header === '*') return 'holds'
  const listed = [...header.matchAll(/(W\/)?"([^"]*)"/g)].map(([, weak, opaque]) => ({ weak: !!weak, opaque }))
  const naming = listed.filter((entry) => `"${entry.opaque}"` === tag)
  if (naming.some((entry) => !entry.weak)) return 'holds'
  return naming.length > 0 ? 'weak' : 'fails'
}

/** The 412 of a change whose If-Match does not hold for `resource` `id`, now at `tag` (or gone: undefined). */
export function preconditionFailed(resource: string, id: number, tag: string | undefined, header: string): Answer {
  if (tag === undefined)
    return errorAnswer(
      412,
      'precondition_failed',
      `If-Match cannot hold: no ${resource} has id ${id}. Nothing was changed.`,
    )
  const message =
    ifMatchDecision(header, tag) === 'weak'
      ? `If-Match names the current ETag of ${resource} ${id} as a weak tag, W/${tag}; If-Match compares strongly, ` +
        `so a weak tag never holds: send the ETag as given, ${tag}. Nothing was changed.`
      : `If-Match does not name the current ETag of ${resource} ${id}, ${tag}: it was changed since it was read. ` +
        'Nothing was changed; read it again before retrying.'
  return errorAnswer(412, 'precondition_failed', message, { etag: tag })
}

/**
 * A read's answer under If-Match (evaluated first, strongly: 412 with the current ETag when it does not hold) or
 * If-None-Match naming the current tag (304, the tag and no body), from the answer without them.
 */
export function conditionalRead(
  answer: Answer,
  resource: string,
  id: number,
  conditions: { ifMatch?: string; ifNoneMatch?: string },
): Answer {
  const tag = answer.etag
  if (answer.status !== 200 || tag === undefined) return answer
  if (conditions.ifMatch !== undefined) {
    const decision = ifMatchDecision(conditions.ifMatch, tag)
    if (decision === 'weak')
      return errorAnswer(
        412,
        'precondition_failed',
        `If-Match names the current ETag of ${resource} ${id} as a weak tag, W/${tag}; If-Match compares strongly, ` +
          `so a weak tag never holds: send the ETag as given, ${tag}.`,
        { etag: tag },
      )
    if (decision === 'fails')
      return errorAnswer(
        412,
        'precondition_failed',
        `If-Match does not name the current ETag of ${resource} ${id}, ${tag}: ` +
          'it was changed since that ETag was read.',
        { etag: tag },
      )
  }
  if (conditions.ifNoneMatch === tag) return { status: 304, etag: tag }
  return answer
}

export const notFound = (resource: string, id: number): Answer =>
  errorAnswer(404, 'not_found', `No ${resource} has id ${id}.`)

/** Pets not deleted, in id order: what GET /v1/pets lists. */
export function listedPets(state: ShopState): Pet[] {
  return [...state.pets.values()]
    .filter((pet) => !pet.deleted)
    .map((pet) => pet.value)
    .sort((a, b) => a.id - b.id)
}

export function listedCategories(state: ShopState): Category[] {
  return [...state.categories.values()].map((category) => category.value).sort((a, b) => a.id - b.id)
}

export function listedOrders(state: ShopState): Order[] {
  return [...state.orders.values()].sort((a, b) => a.id - b.id)
}
