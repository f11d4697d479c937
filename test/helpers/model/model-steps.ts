// A seeded random sequence of API requests, each with the answer the reference model gives it: writes of pets,
// orders and categories (some conditional, some with an Idempotency-Key), reads, retries under a key used before,
// and requests that must be refused. Each step's answer is worked out, and the model changed, as the step is made;
// the steps are sent one at a time, so the model's order is the service's commit order.
import { createCategory, deleteCategory, getCategory, putCategory } from './category-model.js'
import { IdempotencyModel, type ModelRequest } from './idempotency-model.js'
import {
  categoryIdFor,
  categoryName,
  headersOf,
  ifMatchFor,
  livePetId,
  PET_STATUSES,
  petName,
  petPatch,
  someId,
} from './model-choices.js'
import { feedRead, listingRead, type ReadStep } from './model-reads.js'
import { refusal } from './model-refusals.js'
import { finishOrder, getOrder, placeOrder } from './order-model.js'
import { createPet, deletePet, getPet, updatePet, type NewPet } from './pet-model.js'
import type { Random } from './seeded-random.js'
import { conditionalRead, emptyShop, type Answer } from './shop-state.js'

export interface Step {
  operation: string
  request: ModelRequest
  expected: Answer
  /** For a read checked otherwise than by comparing with `expected` (model-reads.ts). */
  check?: ReadStep['check']
}

const SHIP_DATES = ['2026-05-01T10:00:00+02:00', '2026-12-31T23:59:59.5-05:30', '2027-02-28T00:00:00Z']

export class ShopScript {
  readonly state = emptyShop()
  private readonly keys = new IdempotencyModel()
  private readonly feed: { listedAtOnce: boolean; listedThrough: number }

  /** `feedListedAtOnce`: whether an event is in the feed as soon as its write is answered (SQLite). */
  constructor(
    private readonly random: Random,
    { feedListedAtOnce }: { feedListedAtOnce: boolean },
  ) {
    this.feed = { listedAtOnce: feedListedAtOnce, listedThrough: 0 }
  }

  /** The operations and how often each is drawn. */
  private readonly operations: [number, () => Step][] = [
    [14, () => this.createPet()],
    [14, () => this.updatePet()],
    [5, () => this.deletePet()],
    [5, () => this.getPet()],
    [10, () => this.placeOrder()],
    [8, () => this.finishOrder()],
    [5, () => this.createCategory()],
    [6, () => this.putCategory()],
    [4, () => this.deleteCategory()],
    [3, () => this.getCategory()],
    [2, () => this.getOrder()],
    [6, () => this.retry('same')],
    [3, () => this.retry('other')],
    [2, () => this.retry('client')],
    [6, () => this.refused()],
    [4, () => listingRead(this.state, this.random)],
    [4, () => feedRead(this.state, this.random, this.feed)],
  ]

  next(): Step {
    const total = this.operations.reduce((sum, [weight]) => sum + weight, 0)
    let draw = this.random.below(total)
    for (const [weight, make] of this.operations) {
      if (draw < weight) return make()
      draw -= weight
    }
    throw new Error('unreachable')
  }

  /** A write, now and then under a new Idempotency-Key, whose answer every retry with that key must get. */
  private write(operation: string, request: ModelRequest, apply: () => Answer): Step {
    if (!this.random.chance(0.3)) return { operation, request, expected: apply() }
    const keyed = this.keys.withNewKey(request, this.random)
    const expected = apply()
    this.keys.remember(keyed, expected, apply)
    return { operation, request: keyed, expected }
  }

  createPet(name = petName(this.random)): Step {
    const input: NewPet = { name, categoryId: categoryIdFor(this.state, this.random) }
    if (this.random.chance(0.4)) input.status = this.random.pick([...PET_STATUSES, 'available', 'available'])
    return this.write('createPet', { method: 'POST', path: '/v1/pets', body: input }, () =>
      createPet(this.state, input),
    )
  }

  private updatePet(): Step {
    const id = livePetId(this.state, this.random)
    const patch = petPatch(this.state, id, this.random)
    const ifMatch = ifMatchFor(id, this.state.pets.get(id)?.version, this.random)
    const mediaType = this.random.pick(['application/json', 'application/merge-patch+json'])
    const headers = headersOf({ 'if-match': ifMatch, 'content-type': mediaType })
    return this.write('updatePet', { method: 'PATCH', path: `/v1/pets/${id}`, body: patch, headers }, () =>
      updatePet(this.state, id, patch, ifMatch),
    )
  }

  private deletePet(): Step {
    const id = livePetId(this.state, this.random)
    const ifMatch = ifMatchFor(id, this.state.pets.get(id)?.version, this.random)
    const request = { method: 'DELETE', path: `/v1/pets/${id}`, headers: headersOf({ 'if-match': ifMatch }) }
    return this.write('deletePet', request, () => deletePet(this.state, id, ifMatch))
  }

  private getPet(): Step {
    const id = someId(this.state.pets.keys(), this.random)
    return this.read('getPet', `/v1/pets/${id}`, id, this.state.pets.get(id)?.version, getPet(this.state, id))
  }

  /** A GET, now and then with If-Match (a tag that holds or not) or If-None-Match naming the current tag. */
  private read(operation: string, path: string, id: number, version: number | undefined, plain: Answer): Step {
    const resource = operation === 'getPet' ? 'pet' : 'category'
    const conditions = this.random.pick([
      {},
      {},
      { ifMatch: ifMatchFor(id, version, this.random) },
      { ifNoneMatch: plain.etag },
    ])
    const headers = headersOf({ 'if-match': conditions.ifMatch, 'if-none-match': conditions.ifNoneMatch })
    const expected = conditionalRead(plain, resource, id, conditions)
    return { operation, request: { method: 'GET', path, headers }, expected }
  }

  private placeOrder(): Step {
    const available = [...this.state.pets.values()].filter((pet) => !pet.deleted && pet.value.status === 'available')
    const petId =
      available.length > 0 && this.random.chance(0.7)
        ? this.random.pick(available).value.id
        : livePetId(this.state, this.random)
    const body: { petId: number; quantity?: number; shipDate?: string } = { petId }
    if (this.random.chance(0.5)) body.quantity = 1 + this.random.below(100)
    if (this.random.chance(0.3)) body.shipDate = this.random.pick(SHIP_DATES)
    return this.write('placeOrder', { method: 'POST', path: '/v1/store/orders', body }, () =>
      placeOrder(this.state, body),
    )
  }

  private finishOrder(): Step {
    const placed = [...this.state.orders.values()].filter((order) => order.status === 'placed')
    const id =
      placed.length > 0 && this.random.chance(0.7)
        ? this.random.pick(placed).id
        : someId(this.state.orders.keys(), this.random)
    const action = this.random.pick(['cancel', 'complete'] as const)
    const request =
      action === 'cancel'
        ? { method: 'DELETE', path: `/v1/store/orders/${id}` }
        : { method: 'POST', path: `/v1/store/orders/${id}/complete` }
    return this.write(`${action}Order`, request, () => finishOrder(this.state, id, action))
  }

  private createCategory(): Step {
    const name = categoryName(this.random)
    return this.write('createCategory', { method: 'POST', path: '/v1/categories', body: { name } }, () =>
      createCategory(this.state, name),
    )
  }

  private putCategory(): Step {
    const petCategoryIds = [...this.state.pets.values()].map((pet) => pet.value.categoryId)
    const id = this.random.pick([
      ...(this.state.categories.size > 0 ? [someId(this.state.categories.keys(), this.random)] : []),
      ...(petCategoryIds.length > 0 ? [this.random.pick(petCategoryIds)] : []),
      1 + this.random.below(15),
    ])
    const existing = this.state.categories.get(id)
    const name = existing && this.random.chance(0.3) ? existing.value.name : categoryName(this.random)
    const onlyIfAbsent = this.random.chance(0.15)
    const ifMatch = onlyIfAbsent ? undefined : ifMatchFor(id, existing?.version, this.random)
    const headers = headersOf({ 'if-match': ifMatch, 'if-none-match': onlyIfAbsent ? '*' : undefined })
    const request = { method: 'PUT', path: `/v1/categories/${id}`, body: { name }, headers }
    return this.write('putCategory', request, () => putCategory(this.state, id, name, { ifMatch, onlyIfAbsent }))
  }

  private deleteCategory(): Step {
    const id = someId(this.state.categories.keys(), this.random)
    const ifMatch = ifMatchFor(id, this.state.categories.get(id)?.version, this.random)
    const request = { method: 'DELETE', path: `/v1/categories/${id}`, headers: headersOf({ 'if-match': ifMatch }) }
    return this.write('deleteCategory', request, () => deleteCategory(this.state, id, ifMatch))
  }

  private getCategory(): Step {
    const id = someId(this.state.categories.keys(), this.random)
    const version = this.state.categories.get(id)?.version
    return this.read('getCategory', `/v1/categories/${id}`, id, version, getCategory(this.state, id))
  }

  /** A request the schema refuses, now and then with an Idempotency-Key, which stays free (it is never looked at). */
  private refused(): Step {
    const { request, expected } = refusal(this.state, this.random)
    const writes = request.method !== 'GET'
    return {
      operation: 'refused',
      request: writes && this.random.chance(0.3) ? this.keys.withUnusedKey(request, this.random) : request,
      expected,
    }
  }

  private getOrder(): Step {
    const id = someId(this.state.orders.keys(), this.random)
    const request = { method: 'GET', path: `/v1/store/orders/${id}` }
    return { operation: 'getOrder', request, expected: getOrder(this.state, id) }
  }

  private retry(kind: 'same' | 'other' | 'client'): Step {
    if (this.keys.size === 0) return this.createPet()
    const { request, expected } =
      kind === 'same'
        ? this.keys.retrySame(this.random)
        : kind === 'other'
          ? this.keys.retryOther(this.random)
          : this.keys.fromOtherClient(this.random)
    const operation = kind === 'client' ? 'a used key from the other API key' : `retry with the ${kind} request`
    return { operation, request, expected }
  }
}
