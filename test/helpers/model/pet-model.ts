// The pets' transitions in the reference model (shop-state.ts): creating, changing, deleting and reading an animal,
// as orders.md ("Catalogue maintenance") and decisions.md describe them.
import {
  errorAnswer,
  ifMatchDecision,
  notFound,
  preconditionFailed,
  tagOf,
  type Answer,
  type Pet,
  type ShopState,
  type Versioned,
} from './shop-state.js'

export interface NewPet {
  name: string
  categoryId: number
  status?: Pet['status']
}

export type PetPatch = Partial<Omit<Pet, 'id'>>

/** Ids are given by the database in ascending order and never reused, deleted pets' included. */
const nextId = (ids: Iterable<number>) => Math.max(0, ...ids) + 1

export function createPet(state: ShopState, input: NewPet): Answer {
  const pet: Pet = { id: nextId(state.pets.keys()), ...input, status: input.status ?? 'available' }
  state.pets.set(pet.id, { value: pet, version: 1, deleted: false })
  state.events.push({ type: 'pet.created', data: { pet: { ...pet } } })
  return { status: 201, body: { ...pet }, etag: tagOf(pet.id, 1), location: `/v1/pets/${pet.id}` }
}

/** The pet as a change finds it, or the refusal: 404 (no condition) or 412 for a missing one, 412 for a stale tag. */
function current(state: ShopState, id: number, ifMatch: string | undefined): Versioned<Pet> | Answer {
  const pet = state.pets.get(id)
  if (pet === undefined || pet.deleted)
    return ifMatch === undefined ? notFound('pet', id) : preconditionFailed('pet', id, undefined, ifMatch)
  const tag = tagOf(id, pet.version)
  if (ifMatch !== undefined && ifMatchDecision(ifMatch, tag) !== 'holds')
    return preconditionFailed('pet', id, tag, ifMatch)
  return pet
}

export function placedOrderOf(state: ShopState, petId: number): number | undefined {
  return [...state.orders.values()].find((order) => order.petId === petId && order.status === 'placed')?.id
}

export function updatePet(state: ShopState, id: number, patch: PetPatch, ifMatch?: string): Answer {
  const pet = current(state, id, ifMatch)
  if (!('value' in pet)) return pet
  const changed = (Object.keys(patch) as (keyof PetPatch)[]).filter((key) => patch[key] !== pet.value[key])
  if (changed.length > 0) {
    const orderId = placedOrderOf(state, id)
    if (changed.includes('status') && orderId !== undefined)
      return errorAnswer(
        409,
        'conflict',
        `Pet ${id} has a placed order (${orderId}): its status follows that order until it is completed or ` +
          'cancelled. Nothing was changed.',
      )
    // A patch that changes nothing keeps the version and writes no event.
    pet.value = { ...pet.value, ...patch }
    pet.version += 1
    state.events.push({ type: 'pet.updated', data: { pet: { ...pet.value } } })
  }
  return { status: 200, body: { ...pet.value }, etag: tagOf(id, pet.version) }
}

export function deletePet(state: ShopState, id: number, ifMatch?: string): Answer {
  const pet = current(state, id, ifMatch)
  if (!('value' in pet)) return pet
  const orderId = placedOrderOf(state, id)
  if (orderId !== undefined)
    return errorAnswer(
      409,
      'conflict',
      `Pet ${id} has a placed order (${orderId}); complete or cancel it before deleting the pet. Nothing was changed.`,
    )
  pet.deleted = true
  pet.version += 1
  state.events.push({ type: 'pet.deleted', data: { pet: { ...pet.value } } })
  return { status: 204 }
}

export function getPet(state: ShopState, id: number): Answer {
  const pet = state.pets.get(id)
  if (pet === undefined || pet.deleted) return notFound('pet', id)
  return { status: 200, body: { ...pet.value }, etag: tagOf(id, pet.version) }
}

/** Moves a pet's status for an order (orders.md's state machine): a change of the pet, with its own version. */
export function movePetForOrder(state: ShopState, id: number, status: Pet['status']): void {
  const pet = state.pets.get(id)
  if (pet === undefined) throw new Error(`the model has no pet ${id}`)
  pet.value = { ...pet.value, status }
  pet.version += 1
  state.events.push({ type: 'pet.updated', data: { pet: { ...pet.value } } })
}

export { nextId }
