// A pet's creation and its pet.created, in the unit of work of the change: the pet's id, which the event's data
// holds, is assigned by the database, so the store writes both (db/insert-with-event.ts; on PostgreSQL one
// statement). The data is the bytes the mapper gives, cut where the id goes (toPetEventDataAroundId).
import { insertWithEvent } from '../db/insert-with-event.js'
import type { UnitOfWork } from '../db/unit-of-work.js'
import { toPet, toPetEventData, toPetEventDataAroundId } from './pet.mapper.js'
import type { NewPetRow, PetRow } from './pet.repository.js'

/** Inserts a pet and records its pet.created in `uow`. */
export function insertPetRecordingCreation(uow: UnitOfWork, row: NewPetRow): Promise<PetRow> {
  return insertWithEvent(uow, {
    table: 'pets',
    values: { name: row.name, category_id: row.category_id, status: row.status },
    type: 'pet.created',
    data: (inserted) => toPetEventData(toPet(inserted)),
    dataAroundId: () => toPetEventDataAroundId(row),
  })
}
