// Rebuilds a shop from its event feed alone, as a follower would (events.md): the animals, categories and orders,
// and the version each animal and category must be at (the ETag's second part), counted from the events: an
// animal is created at 1 and every pet.updated adds one; a category is created one above the floor of the
// versions its deleted ones reached, and every rename adds one.
import type { FeedEvent } from '../events.js'
import type { Category, Order, Pet } from './shop-state.js'

export interface ReplayedShop {
  /** Pets not deleted, in id order. */
  pets: Pet[]
  categories: Category[]
  orders: Order[]
  /** The ETag each pet and category not deleted must have now, by its path. */
  etags: Map<string, string>
}

type Data = { pet?: Pet; order?: Order; category?: Category }

export function replayFeed(events: readonly FeedEvent[]): ReplayedShop {
  const pets = new Map<number, { pet: Pet; version: number }>()
  const categories = new Map<number, { category: Category; version: number }>()
  const orders = new Map<number, Order>()
  let categoryFloor = 0
  for (const event of events) {
    const { pet, order, category } = event.data as Data
    switch (event.type) {
      case 'pet.created':
        if (pet) pets.set(pet.id, { pet, version: 1 })
        break
      case 'pet.updated': {
        const kept = pet && pets.get(pet.id)
        if (!pet || !kept) throw new Error(`event ${event.id}: an update of a pet the feed never created`)
        pets.set(pet.id, { pet, version: kept.version + 1 })
        break
      }
      case 'pet.deleted':
        if (pet) pets.delete(pet.id)
        break
      case 'order.placed':
      case 'order.cancelled':
      case 'order.completed':
        if (order) orders.set(order.id, order)
        break
      case 'category.created':
        if (category) categories.set(category.id, { category, version: categoryFloor + 1 })
        break
      case 'category.updated': {
        const kept = category && categories.get(category.id)
        if (!category || !kept) throw new Error(`event ${event.id}: a rename of a category the feed never created`)
        categories.set(category.id, { category, version: kept.version + 1 })
        break
      }
      case 'category.deleted': {
        const kept = category && categories.get(category.id)
        if (!category || !kept) throw new Error(`event ${event.id}: a delete of a category the feed never created`)
        categoryFloor = Math.max(categoryFloor, kept.version)
        categories.delete(category.id)
        break
      }
      default:
        throw new Error(`event ${event.id}: unexpected type ${event.type}`)
    }
  }
  const byId = <T extends { id: number }>(items: Iterable<T>) => [...items].sort((a, b) => a.id - b.id)
  const etags = new Map<string, string>()
  for (const { pet, version } of pets.values()) etags.set(`/v1/pets/${pet.id}`, `"${pet.id}.${version}"`)
  for (const { category, version } of categories.values())
    etags.set(`/v1/categories/${category.id}`, `"${category.id}.${version}"`)
  return {
    pets: byId([...pets.values()].map((entry) => entry.pet)),
    categories: byId([...categories.values()].map((entry) => entry.category)),
    orders: byId(orders.values()),
    etags,
  }
}
