// A pet's creation and its pet.created, in the unit of work of the change. On PostgreSQL one statement does both
// (the pet's id, which the event's data holds, is assigned by the database in that statement): half the
// statements, and nothing waits between them. The data is the bytes the mapper gives, cut where the id goes
// (toPetEventDataAroundId); the database writes the id's digits between the two halves.
import { CompiledQuery, PostgresAdapter } from 'kysely'
import { wholeChange } from '../db/postgres-transactions.js'
import type { UnitOfWork } from '../db/unit-of-work.js'
import { eventOfInsertedRow, recordEvent } from '../events/event-log.js'
import { postgresEventOfInsertedRow } from '../events/event.repository.js'
import { toPet, toPetEventData, toPetEventDataAroundId } from './pet.mapper.js'
import { insertPet, type NewPetRow, type PetRow } from './pet.repository.js'

/** Inserts a pet and records its pet.created in `uow`. */
export async function insertPetRecordingCreation(uow: UnitOfWork, row: NewPetRow): Promise<PetRow> {
  if (uow.trx.getExecutor().adapter instanceof PostgresAdapter) return insertPetWithEvent(uow, row)
  const inserted = await insertPet(uow.trx, row)
  await recordEvent(uow, 'pet.created', toPetEventData(toPet(inserted)))
  return inserted
}

// Every data-modifying part of a WITH runs once, whether the statement's result reads it or not.
const POSTGRES_INSERT_WITH_EVENT = `with pet as (
    insert into pets (name, category_id, status) values ($1, $2, $3) returning *
  ), event as (${postgresEventOfInsertedRow('pet', 4)})
  select * from pet`

/**
 * PostgreSQL: the pet and its pet.created in one statement, the whole change: when nothing follows it in the
 * unit of work (no stored answer), it is sent without BEGIN and COMMIT (db/postgres-transactions.ts).
 */
async function insertPetWithEvent(uow: UnitOfWork, pet: NewPetRow): Promise<PetRow> {
  const { rows } = await wholeChange<PetRow>(
    uow,
    CompiledQuery.raw(POSTGRES_INSERT_WITH_EVENT, [
      pet.name,
      pet.category_id,
      pet.status,
      ...eventOfInsertedRow(uow, 'pet.created', toPetEventDataAroundId(pet)),
    ]),
  )
  const inserted = rows[0]
  if (!inserted) throw new Error('the insert of a pet returned no row')
  return inserted
}
