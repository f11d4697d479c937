// Reading the event feed as a client does: a page, the `after` its Link header carries, the whole feed.
import assert from 'node:assert/strict'
import type { Order, Pet } from './orders.js'
import type { TestServer } from './server.js'

export interface FeedEvent {
  id: number
  type: string
  timestamp: string
  data: { pet: Pet } | { order: Order }
}

export interface FeedPage {
  status: number
  events: FeedEvent[]
  /** The `after` of the Link header (always present on a 200). */
  nextAfter: number
  link: string
}

export type Get = (path: string, init?: RequestInit) => Promise<Response>

/** The `after` carried by a `Link: <…/v1/events?after=N…>; rel="next"` header. */
export function nextAfterOf(link: string | null): number {
  const match = /^<[^>]*\/v1\/events\?after=(\d+)[^>]*>; rel="next"$/.exec(link ?? '')
  assert.ok(match?.[1], `Link header ${link}`)
  return Number(match[1])
}

/** One page of the feed, which must be answered 200. */
export async function readFeed(get: Get, query = '', init?: RequestInit): Promise<FeedPage> {
  const response = await get(`/v1/events${query ? `?${query}` : ''}`, init)
  const text = await response.text()
  assert.equal(response.status, 200, text)
  const link = response.headers.get('link') ?? ''
  return { status: response.status, events: JSON.parse(text) as FeedEvent[], nextAfter: nextAfterOf(link), link }
}

/** Every event after `after`, following Link until a page comes back empty. */
export async function readWholeFeed(get: Get, after = 0, query = 'limit=1000'): Promise<FeedEvent[]> {
  const events: FeedEvent[] = []
  for (let position = after; ;) {
    const page = await readFeed(get, `after=${position}&${query}`)
    events.push(...page.events)
    if (page.events.length === 0 && page.nextAfter === position) return events
    position = page.nextAfter
  }
}

/** Follows the feed from `after` with long polls until `found` holds for an event; returns every event up to it. */
export async function followUntil(get: Get, after: number, found: (event: FeedEvent) => boolean): Promise<FeedEvent[]> {
  const events: FeedEvent[] = []
  for (let position = after; ;) {
    const page = await readFeed(get, `after=${position}&limit=1000&wait=5`)
    for (const event of page.events) {
      events.push(event)
      if (found(event)) return events
    }
    position = page.nextAfter
  }
}

/**
 * Creates a pet and waits until its pet.created is listed; returns that event's id. Every change committed
 * before the barrier was made has its event listed at or below this id by then: a clean start (or end) for
 * what a test reads, on PostgreSQL too, where a committed event is listed only once every older transaction on
 * the server (another test file's included) has ended.
 */
export async function barrier(get: Get, after = 0): Promise<number> {
  const response = await get('/v1/pets', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Barrier', categoryId: 1 }),
  })
  assert.equal(response.status, 201)
  const pet = (await response.json()) as Pet
  const events = await followUntil(
    get,
    after,
    (event) => event.type === 'pet.created' && 'pet' in event.data && event.data.pet.id === pet.id,
  )
  return events.at(-1)?.id ?? after
}

/** The events after `after` that were committed before a barrier made now (the barrier's own left out). */
export async function eventsBefore(get: Get, after: number): Promise<FeedEvent[]> {
  const end = await barrier(get, after)
  const events = await readWholeFeed(get, after)
  return events.filter((event) => event.id < end)
}

/** Events as their types and the id of what they carry, for comparisons that ignore ids and times. */
export function summarise(events: readonly FeedEvent[]): string[] {
  return events.map(
    (event) =>
      `${event.type} ` +
      ('pet' in event.data
        ? `pet ${event.data.pet.id} ${event.data.pet.status}`
        : `order ${event.data.order.id} ${event.data.order.status}`),
  )
}

export const RFC3339_UTC_MILLISECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/**
 * Resolves once /metrics shows `name` at `value` (e.g. a long poll is known to wait); the test's time-out bounds it.
 */
export async function waitForMetric(server: Pick<TestServer, 'baseUrl'>, name: string, value: number): Promise<void> {
  for (;;) {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text()
    if (new RegExp(`^${name} ${value}$`, 'm').test(text)) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
