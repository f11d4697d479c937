// What must hold once the model's steps have all been answered: the listings, walked page by page through their
// cursors, are the model's; every animal and category reads as the model has it; and the event feed, read from the
// start, holds exactly one event per committed change, in commit order, and rebuilds the same shop, ETags included.
import assert from 'node:assert/strict'
import { readFeed, readWholeFeed, RFC3339_UTC_MILLISECONDS, type FeedEvent } from '../events.js'
import { collectPages } from '../link.js'
import { replayFeed } from './feed-replay.js'
import { getCategory } from './category-model.js'
import { getPet } from './pet-model.js'
import { listedCategories, listedOrders, listedPets, type ShopState } from './shop-state.js'

/** A GET on one of the instances, chosen by the caller's count of requests. */
export type Get = (path: string, init?: RequestInit) => Promise<Response>

/** Small pages, so that every walk crosses several cursors. */
const LISTINGS = ['/v1/pets?limit=7', '/v1/categories?limit=3', '/v1/store/orders?limit=9']

async function checkListings(get: Get, state: ShopState, seed: number): Promise<void> {
  const [pets, categories, orders] = await Promise.all(LISTINGS.map((path) => collectPages(get, path)))
  assert.deepEqual(pets, listedPets(state), `seed ${seed}: GET /v1/pets`)
  assert.deepEqual(categories, listedCategories(state), `seed ${seed}: GET /v1/categories`)
  assert.deepEqual(orders, listedOrders(state), `seed ${seed}: GET /v1/store/orders`)
  for (const status of ['available', 'pending', 'sold']) {
    const path = `/v1/pets?status=${status}&limit=4`
    const expected = listedPets(state).filter((pet) => pet.status === status)
    assert.deepEqual(await collectPages(get, path), expected, `seed ${seed}: GET ${path}`)
  }
  const categoryIds = new Set(listedPets(state).map((pet) => pet.categoryId))
  for (const categoryId of categoryIds) {
    const path = `/v1/pets?categoryId=${categoryId}&status=available&limit=2`
    const expected = listedPets(state).filter((pet) => pet.categoryId === categoryId && pet.status === 'available')
    assert.deepEqual(await collectPages(get, path), expected, `seed ${seed}: GET ${path}`)
  }
}

/** Every pet and category the run named, deleted ones too: the model's answer, ETag included. */
async function checkReads(get: Get, state: ShopState, seed: number): Promise<void> {
  const reads = [
    ...[...state.pets.keys()].map((id) => ({ path: `/v1/pets/${id}`, expected: getPet(state, id) })),
    ...[...state.categories.keys()].map((id) => ({ path: `/v1/categories/${id}`, expected: getCategory(state, id) })),
  ]
  for (const { path, expected } of reads) {
    const response = await get(path)
    assert.equal(response.status, expected.status, `seed ${seed}: GET ${path}`)
    assert.deepEqual(await response.json(), expected.body, `seed ${seed}: GET ${path}`)
    assert.equal(response.headers.get('etag'), expected.etag ?? null, `seed ${seed}: GET ${path} ETag`)
  }
}

/**
 * The feed from the start until it holds `count` events, following Link with long polls (on PostgreSQL an event is
 * listed once it is numbered, shortly after its commit), then one more read: nothing may follow them.
 */
export async function readFeedThrough(get: Get, count: number): Promise<FeedEvent[]> {
  const events: FeedEvent[] = []
  let after = 0
  while (events.length < count) {
    const page = await readFeed(get, `after=${after}&limit=${Math.min(1000, count - events.length)}&wait=5`)
    // A long poll answers [] only when nothing was listed during its wait: the feed has fewer events than changes.
    assert.notDeepEqual(page.events, [], `the feed lists ${events.length} events for ${count} changes`)
    events.push(...page.events)
    after = page.nextAfter
  }
  const rest = await readFeed(get, `after=${after}`)
  assert.deepEqual(rest.events, [], 'events beyond those of the changes made')
  return events
}

/** The feed walked with a `types` filter (small pages, following Link) lists exactly those of `events`. */
async function checkTypeFilters(get: Get, events: readonly FeedEvent[], seed: number): Promise<void> {
  const filters = [
    ['pet.created', 'pet.deleted'],
    ['order.placed', 'order.cancelled', 'order.completed'],
    ['category.created', 'category.updated', 'category.deleted'],
  ]
  for (const types of filters) {
    const filtered = await readWholeFeed(get, 0, `limit=5&types=${types.join(',')}`)
    assert.deepEqual(
      filtered,
      events.filter((event) => types.includes(event.type)),
      `seed ${seed}: the feed with types=${types.join(',')}`,
    )
  }
}

export async function checkFinalState(get: Get, state: ShopState, seed: number): Promise<void> {
  await checkListings(get, state, seed)
  await checkReads(get, state, seed)

  const events = await readFeedThrough(get, state.events.length)
  assert.deepEqual(
    events.map((event) => event.id),
    events.map((_, index) => index + 1),
    `seed ${seed}: event ids are consecutive from 1`,
  )
  for (const event of events) assert.match(event.timestamp, RFC3339_UTC_MILLISECONDS)
  // One event per committed change, in the order they were made; none for a refusal or a replay.
  assert.deepEqual(
    events.map(({ type, data }) => ({ type, data })),
    state.events,
    `seed ${seed}: the feed's events are the changes made`,
  )

  await checkTypeFilters(get, events, seed)

  const replayed = replayFeed(events)
  assert.deepEqual(replayed.pets, listedPets(state), `seed ${seed}: the feed rebuilds the pets`)
  assert.deepEqual(replayed.categories, listedCategories(state), `seed ${seed}: the feed rebuilds the categories`)
  assert.deepEqual(replayed.orders, listedOrders(state), `seed ${seed}: the feed rebuilds the orders`)
  for (const [path, tag] of replayed.etags) {
    const response = await get(path)
    await response.arrayBuffer()
    assert.equal(response.headers.get('etag'), tag, `seed ${seed}: the ETag of ${path} counted from the feed`)
  }
}
