// How services write events: inside the transaction of the change, so that the change and its event commit
// together or not at all. Once a transaction with events has committed, whoever composed the services hears of
// it (notifyingCommits), to wake the readers waiting on this instance without a query per commit.
import { PostgresAdapter } from 'kysely'
import type { DataAccess, EventType, Writer } from '../db/database.js'
import type { Order } from '../orders/order.schema.js'
import { toPet } from '../pets/pet.mapper.js'
import { insertPet, insertPetWithEvent, type NewPetRow, type PetRow } from '../pets/pet.repository.js'
import type { Pet } from '../pets/pet.schema.js'
import { appendEvent } from './event.repository.js'

export type PetEventType = Extract<EventType, `pet.${string}`>
export type OrderEventType = Extract<EventType, `order.${string}`>

/** The types of the events each open transaction has written, until it ends. */
const written = new WeakMap<Writer, EventType[]>()

function noteWritten(trx: Writer, type: EventType): void {
  const types = written.get(trx)
  if (types) types.push(type)
  else written.set(trx, [type])
}

async function recordEvent(trx: Writer, type: EventType, data: { pet: Pet } | { order: Order }): Promise<void> {
  // The data as the API shows the resource: the mappers give the keys in the schema's order.
  await appendEvent(trx, { type, occurredAt: new Date().toISOString(), data: JSON.stringify(data) })
  noteWritten(trx, type)
}

/** Records a change of a pet (`pet` as it is after the change; its last state for pet.deleted) in `trx`. */
export function recordPetChange(trx: Writer, type: PetEventType, pet: Pet): Promise<void> {
  return recordEvent(trx, type, { pet })
}

/** Records a change of an order (as it is after the change) in `trx`. */
export function recordOrderChange(trx: Writer, type: OrderEventType, order: Order): Promise<void> {
  return recordEvent(trx, type, { order })
}

/** What a pet's id is written as in a feed before the database gave it one: cut out of the JSON, then spliced in. */
const ID_TO_COME = 0
const BEFORE_ID = '{"pet":{"id":'

/**
 * Inserts a pet and records its pet.created in `trx`. On PostgreSQL one statement does both (the pet's id,
 * which the event's data holds, is assigned by the database in that statement): half the statements, and
 * nothing waits between them. The data is the same bytes as JSON.stringify({ pet }) would give: the mapper's
 * JSON with a placeholder id, cut at the id, which the database writes as the same digits.
 */
export async function insertPetRecordingCreation(trx: Writer, row: NewPetRow): Promise<PetRow> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) {
    const inserted = await insertPet(trx, row)
    await recordPetChange(trx, 'pet.created', toPet(inserted))
    return inserted
  }
  const json = JSON.stringify({ pet: toPet({ ...row, id: ID_TO_COME, version: 1, deleted_at: null }) })
  const withPlaceholder = `${BEFORE_ID}${ID_TO_COME},`
  if (!json.startsWith(withPlaceholder)) throw new Error(`a pet's JSON no longer starts with its id: ${json}`)
  const inserted = await insertPetWithEvent(trx, row, {
    type: 'pet.created',
    occurredAt: new Date().toISOString(),
    dataBeforeId: BEFORE_ID,
    dataAfterId: json.slice(withPlaceholder.length - 1),
  })
  noteWritten(trx, 'pet.created')
  return inserted
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
