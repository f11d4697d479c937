// The categories' transitions in the reference model (shop-state.ts), as categories.md states them: names unique
// in their folded form, POST's id above every id in use or handed out, versions above a floor that deletes raise.
import {
  errorAnswer,
  ifMatchDecision,
  notFound,
  preconditionFailed,
  tagOf,
  type Answer,
  type Category,
  type ShopState,
  type Versioned,
} from './shop-state.js'

/** The largest id an animal or a category may have (decisions.md: 2^53−1). */
const MAX_ID = 9007199254740991

/** categories.md: NFD, upper then lower case twice, NFC, repeated until the form no longer changes. */
export function foldedName(name: string): string {
  for (let key = name; ;) {
    const next = key.normalize('NFD').toUpperCase().toLowerCase().toUpperCase().toLowerCase().normalize('NFC')
    if (next === key) return key
    key = next
  }
}

function nameHolder(state: ShopState, name: string, exceptId?: number): Category | undefined {
  const key = foldedName(name)
  return [...state.categories.values()].find(
    (category) => category.value.id !== exceptId && foldedName(category.value.name) === key,
  )?.value
}

const nameTaken = (holder: Category) =>
  errorAnswer(
    409,
    'conflict',
    `Category ${holder.id} is named "${holder.name}": names are unique ignoring case. Nothing was changed.`,
  )

function insert(state: ShopState, id: number, name: string): Answer {
  const category: Versioned<Category> = { value: { id, name }, version: state.categoryVersionFloor + 1, deleted: false }
  state.categories.set(id, category)
  state.lastCategoryIdHandedOut = Math.max(state.lastCategoryIdHandedOut, id)
  state.events.push({ type: 'category.created', data: { category: { id, name } } })
  return { status: 201, body: { id, name }, etag: tagOf(id, category.version), location: `/v1/categories/${id}` }
}

export function createCategory(state: ShopState, name: string): Answer {
  const holder = nameHolder(state, name)
  if (holder) return nameTaken(holder)
  // Above every category id, every categoryId an animal carries (deleted ones too) and every id handed out.
  const inUse = [
    state.lastCategoryIdHandedOut,
    ...state.categories.keys(),
    ...[...state.pets.values()].map((pet) => pet.value.categoryId),
  ]
  const id = Math.max(0, ...inUse) + 1
  if (id > MAX_ID)
    return errorAnswer(
      409,
      'conflict',
      `No category id is left above ${MAX_ID}, the largest in use; choose one with PUT. Nothing was changed.`,
    )
  return insert(state, id, name)
}

export interface PutConditions {
  ifMatch?: string
  /** If-None-Match: * */
  onlyIfAbsent?: boolean
}

export function putCategory(state: ShopState, id: number, name: string, conditions: PutConditions = {}): Answer {
  const existing = state.categories.get(id)
  if (existing === undefined) {
    if (conditions.ifMatch !== undefined) return preconditionFailed('category', id, undefined, conditions.ifMatch)
    const holder = nameHolder(state, name)
    return holder ? nameTaken(holder) : insert(state, id, name)
  }
  const tag = tagOf(id, existing.version)
  if (conditions.onlyIfAbsent)
    return errorAnswer(
      412,
      'precondition_failed',
      `If-None-Match: * cannot hold: category ${id} exists already, at ${tag}. Nothing was changed.`,
      { etag: tag },
    )
  if (conditions.ifMatch !== undefined && ifMatchDecision(conditions.ifMatch, tag) !== 'holds')
    return preconditionFailed('category', id, tag, conditions.ifMatch)
  // The same name again changes nothing: the same version, no event.
  if (existing.value.name !== name) {
    const holder = nameHolder(state, name, id)
    if (holder) return nameTaken(holder)
    existing.value = { id, name }
    existing.version += 1
    state.events.push({ type: 'category.updated', data: { category: { id, name } } })
  }
  return { status: 200, body: { ...existing.value }, etag: tagOf(id, existing.version) }
}

export function deleteCategory(state: ShopState, id: number, ifMatch?: string): Answer {
  const existing = state.categories.get(id)
  if (existing === undefined)
    return ifMatch === undefined ? notFound('category', id) : preconditionFailed('category', id, undefined, ifMatch)
  const tag = tagOf(id, existing.version)
  if (ifMatch !== undefined && ifMatchDecision(ifMatch, tag) !== 'holds')
    return preconditionFailed('category', id, tag, ifMatch)
  const user = [...state.pets.values()]
    .filter((pet) => !pet.deleted && pet.value.categoryId === id)
    .map((pet) => pet.value.id)
    .sort((a, b) => a - b)[0]
  if (user !== undefined)
    return errorAnswer(
      409,
      'conflict',
      `Category ${id} is used by pet ${user} (and maybe others); move or delete its pets first. Nothing was changed.`,
    )
  state.categories.delete(id)
  state.categoryVersionFloor = Math.max(state.categoryVersionFloor, existing.version)
  state.events.push({ type: 'category.deleted', data: { category: { ...existing.value } } })
  return { status: 204 }
}

export function getCategory(state: ShopState, id: number): Answer {
  const existing = state.categories.get(id)
  if (existing === undefined) return notFound('category', id)
  return { status: 200, body: { ...existing.value }, etag: tagOf(id, existing.version) }
}
