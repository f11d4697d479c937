// How resources record their events: inside the transaction of the change, so that the change and its event
// commit together or not at all. The resource builds the data with its mapper (the resource as the API shows
// it); the log stores it as JSON and knows nothing of what it holds. Once a transaction with events has
// committed, whoever composed the services hears of it (notifyingCommits): on SQLite its events are readable
// then, on PostgreSQL they are numbered next (event-numbering.ts).
import type { DataAccess, EventType, Writer } from '../db/database.js'
import { appendEvent, eventOfInsertedRowParameters } from './event.repository.js'

/**
 * The types of the events each open transaction has recorded, until it ends: which commits to announce, and
 * what to count. Kept beside the transaction because services take the transaction alone.
 */
const recorded = new WeakMap<Writer, EventType[]>()

function noteRecorded(trx: Writer, type: EventType): void {
  const types = recorded.get(trx)
  if (types) types.push(type)
  else recorded.set(trx, [type])
}

/** Records an event of `type` in `trx`, its data as the resource's mapper built it (`{ pet }`, `{ order }`). */
export async function recordEvent(trx: Writer, type: EventType, data: object): Promise<void> {
  await appendEvent(trx, { type, occurredAt: new Date().toISOString(), data: JSON.stringify(data) })
  noteRecorded(trx, type)
}

/** The JSON text of an event's data, cut where the id the database assigns to its resource goes. */
export interface DataAroundId {
  beforeId: string
  afterId: string
}

/**
 * For a resource's insert that records its event in the same statement (PostgreSQL: postgresEventOfInsertedRow
 * in event.repository.ts): the event's parameters. `trx` counts as having recorded it.
 */
export function eventOfInsertedRow(trx: Writer, type: EventType, data: DataAroundId): unknown[] {
  noteRecorded(trx, type)
  return eventOfInsertedRowParameters({
    type,
    occurredAt: new Date().toISOString(),
    dataBeforeId: data.beforeId,
    dataAfterId: data.afterId,
  })
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
        types = recorded.get(trx)
        return value
      })
      if (types) onCommitted(types)
      return result
    },
  }
}
