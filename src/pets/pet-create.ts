// A pet's creation and its pet.created, in the transaction of the change. On PostgreSQL one statement does both
// (the pet's id, which the event's data holds, is assigned by the database in that statement): half the
// statements, and nothing waits between them. The data is the bytes the mapper gives, cut where the id goes
// (toPetEventDataAroundId); the database writes the id's digits between the two halves.
import { CompiledQuery, PostgresAdapter } from 'kysely'
import type { Writer } from '../db/database.js'
import { wholeChange } from '../db/postgres-transactions.js'
import { eventOfInsertedRow, recordEvent } from '../events/event-log.js'
import { postgresEventOfInsertedRow } from '../events/event.repository.js'
import { toPet, toPetEventData, toPetEventDataAroundId } from './pet.mapper.js'
import { insertPet, type NewPetRow, type PetRow } from './pet.repository.js'

/** Inserts a pet and records its pet.created in `trx`. */
export async function insertPetRecordingCreation(trx: Writer, row: NewPetRow): Promise<PetRow> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) return insertPetWithEvent(trx, row)
  const inserted = await insertPet(trx, row)
  await recordEvent(trx, 'pet.created', toPetEventData(toPet(inserted)))
  return inserted
}

// Every data-modifying part of a WITH runs once, whether the statement's result reads it or not.
const POSTGRES_INSERT_WITH_EVENT = `with pet as (
    insert into pets (name, category_id, status) values ($1, $2, $3) returning *
  ), event as (${postgresEventOfInsertedRow('pet', 4)})
  select * from pet`

/**
 * PostgreSQL: the pet and its pet.created in one statement, the whole change: alone in its transaction, it is
 * sent without BEGIN and COMMIT (db/postgres-transactions.ts).
 */
async function insertPetWithEvent(trx: Writer, pet: NewPetRow): Promise<PetRow> {
  const { rows } = await wholeChange<PetRow>(
    trx,
    CompiledQuery.raw(POSTGRES_INSERT_WITH_EVENT, [
      pet.name,
      pet.category_id,
      pet.status,
      ...eventOfInsertedRow(trx, 'pet.created', toPetEventDataAroundId(pet)),
    ]),
  )
  const inserted = rows[0]
  if (!inserted) throw new Error('the insert of a pet returned no row')
  return inserted
}
