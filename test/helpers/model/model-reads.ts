// Reads made between the writes: the first page of a listing, and a page of the event feed. Each is checked against
// the model as it is at that step, so that a read that lags behind a write (a cache kept too long, an instance that
// has not seen the other's commit) is caught where it happens, not only at the end.
import assert from 'node:assert/strict'
import type { ModelRequest } from './idempotency-model.js'
import type { Random } from './seeded-random.js'
import { listedCategories, listedOrders, listedPets, type Answer, type ShopState } from './shop-state.js'

export interface ReadStep {
  operation: string
  request: ModelRequest
  expected: Answer
  /** Checks the answer's text and headers instead of comparing them with `expected`. */
  check: (text: string, response: Response, where: string) => void
}

/** The first page of a listing: the model's first `limit` items, and Link exactly when more remain. */
function firstPage(operation: string, path: string, items: readonly unknown[], limit: number): ReadStep {
  return {
    operation,
    request: { method: 'GET', path },
    expected: { status: 200 },
    check(text, response, where) {
      assert.deepEqual(JSON.parse(text), items.slice(0, limit), `${where}: the page`)
      const link = response.headers.get('link')
      assert.equal(link !== null, items.length > limit, `${where}: Link ${link} while ${items.length} are listed`)
    },
  }
}

export function listingRead(state: ShopState, random: Random): ReadStep {
  const limit = 1 + random.below(8)
  const pets = listedPets(state)
  switch (random.below(4)) {
    case 0: {
      const status = random.pick(['available', 'pending', 'sold'])
      const items = pets.filter((pet) => pet.status === status)
      return firstPage('listPets by status', `/v1/pets?status=${status}&limit=${limit}`, items, limit)
    }
    case 1: {
      const categoryId = pets.length > 0 ? random.pick(pets).categoryId : 1
      const items = pets.filter((pet) => pet.categoryId === categoryId)
      return firstPage('listPets by category', `/v1/pets?categoryId=${categoryId}&limit=${limit}`, items, limit)
    }
    case 2:
      return firstPage('listCategories', `/v1/categories?limit=${limit}`, listedCategories(state), limit)
    default:
      return firstPage('listOrders', `/v1/store/orders?limit=${limit}`, listedOrders(state), limit)
  }
}

/**
 * A page of the feed after a position, checked against the model's events: exactly the next ones where an event
 * is listed as soon as its write is answered (SQLite); on PostgreSQL, where it is listed once numbered, just after
 * the commit, a beginning of them that holds at least every event listed by an earlier read.
 */
export function feedRead(
  state: ShopState,
  random: Random,
  feed: { listedAtOnce: boolean; listedThrough: number },
): ReadStep {
  const known = feed.listedAtOnce ? state.events.length : feed.listedThrough
  const after = Math.max(0, known - random.below(12))
  const limit = 1 + random.below(10)
  const expected = state.events.slice(after, after + limit).map((event, index) => ({ id: after + index + 1, ...event }))
  const atLeast = Math.min(limit, known - after)
  return {
    operation: 'listEvents',
    request: { method: 'GET', path: `/v1/events?after=${after}&limit=${limit}` },
    expected: { status: 200 },
    check(text, _response, where) {
      const events = (JSON.parse(text) as { id: number; type: string; data: unknown }[]).map(({ id, type, data }) => ({
        id,
        type,
        data,
      }))
      if (feed.listedAtOnce) assert.deepEqual(events, expected, `${where}: the events`)
      else {
        assert.deepEqual(events, expected.slice(0, events.length), `${where}: the events`)
        assert.ok(events.length >= atLeast, `${where}: ${events.length} events, ${atLeast} were listed before`)
      }
      feed.listedThrough = Math.max(feed.listedThrough, events.at(-1)?.id ?? 0)
    },
  }
}
