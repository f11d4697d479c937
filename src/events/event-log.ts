// How services write events: inside the transaction of the change, so that the change and its event commit
// together or not at all. Once a transaction with events has committed, whoever composed the services hears of
// it (notifyingCommits), to wake the readers waiting on this instance without a query per commit.
import type { DataAccess, EventType, Writer } from '../db/database.js'
import type { Order } from '../orders/order.schema.js'
import type { Pet } from '../pets/pet.schema.js'
import { appendEvent } from './event.repository.js'

export type PetEventType = Extract<EventType, `pet.${string}`>
export type OrderEventType = Extract<EventType, `order.${string}`>

/** The types of the events each open transaction has written, until it ends. */
const written = new WeakMap<Writer, EventType[]>()

async function recordEvent(trx: Writer, type: EventType, data: { pet: Pet } | { order: Order }): Promise<void> {
  // The data as the API shows the resource: the mappers give the keys in the schema's order.
  await appendEvent(trx, { type, occurredAt: new Date().toISOString(), data: JSON.stringify(data) })
  const types = written.get(trx)
  if (types) types.push(type)
  else written.set(trx, [type])
}

/** Records a change of a pet (`pet` as it is after the change; its last state for pet.deleted) in `trx`. */
export function recordPetChange(trx: Writer, type: PetEventType, pet: Pet): Promise<void> {
  return recordEvent(trx, type, { pet })
}

/** Records a change of an order (as it is after the change) in `trx`. */
export function recordOrderChange(trx: Writer, type: OrderEventType, order: Order): Promise<void> {
  return recordEvent(trx, type, { order })
}

/** `data`, whose transactions call `onCommitted` with the types of the events they wrote, once durably committed. */
export function notifyingCommits(data: DataAccess, onCommitted: (types: readonly EventType[]) => void): DataAccess {
  return {
    // Read through, not copied: whoever holds `data` sees the same reads as before it was wrapped.
    get read() {
      return data.read
    },
    async transaction(work) {
      let types: EventType[] | undefined
      const result = await data.transaction(async (trx) => {
        const value = await work(trx)
        types = written.get(trx)
        return value
      })
      if (types) onCommitted(types)
      return result
    },
  }
}
