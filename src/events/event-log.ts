// How resources record their events: inside the unit of work of the change, so that the change and its event
// commit together or not at all. The resource builds the data with its mapper (the resource as the API shows
// it); the log stores it as JSON and knows nothing of what it holds. The unit of work keeps the types it
// recorded: once it has committed they are announced (runUnitOfWork in db/unit-of-work.ts).
import type { DataAccess, EventType } from '../db/database.js'
import type { UnitOfWork } from '../db/unit-of-work.js'
import { appendEvent, eventOfInsertedRowParameters } from './event.repository.js'

/** Records an event of `type` in `uow`, its data as the resource's mapper built it (`{ pet }`, `{ order }`). */
export async function recordEvent(uow: UnitOfWork, type: EventType, data: object): Promise<void> {
  await appendEvent(uow.trx, { type, occurredAt: new Date().toISOString(), data: JSON.stringify(data) })
  uow.events.push(type)
}

/** The JSON text of an event's data, cut where the id the database assigns to its resource goes. */
export interface DataAroundId {
  beforeId: string
  afterId: string
}

/**
 * For a resource's insert that records its event in the same statement (PostgreSQL: postgresEventOfInsertedRow
 * in event.repository.ts): the event's parameters. `uow` counts as having recorded it.
 */
export function eventOfInsertedRow(uow: UnitOfWork, type: EventType, data: DataAroundId): unknown[] {
  uow.events.push(type)
  return eventOfInsertedRowParameters({
    type,
    occurredAt: new Date().toISOString(),
    dataBeforeId: data.beforeId,
    dataAfterId: data.afterId,
  })
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
