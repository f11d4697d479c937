// How resources record their events: inside the unit of work of the change, so that the change and its event
// commit together or not at all. The resource builds the data with its mapper (the resource as the API shows
// it); the log stores it as JSON and knows nothing of what it holds. The unit of work keeps the types it
// recorded: once it has committed they are announced (runUnitOfWork in db/unit-of-work.ts).
import type { DataAccess, EventType } from '../db/database.js'
import type { UnitOfWork } from '../db/unit-of-work.js'
import { appendEvent } from './event.repository.js'

/** Records an event of `type` in `uow`, its data as the resource's mapper built it (`{ pet }`, `{ order }`). */
export async function recordEvent(uow: UnitOfWork, type: EventType, data: object): Promise<void> {
  await appendEvent(uow.trx, { type, occurredAt: new Date().toISOString(), data: JSON.stringify(data) })
  uow.events.push(type)
}

/** `data`, whose units of work call `onCommitted` with the types of the events they recorded, once committed. */
export function notifyingCommits(data: DataAccess, onCommitted: (types: readonly EventType[]) => void): DataAccess {
  return {
    // Read through, not copied: whoever holds `data` sees the same reads as before it was wrapped.
    get read() {
      return data.read
    },
    transaction: (work) => data.transaction(work),
    committed: onCommitted,
  }
}
