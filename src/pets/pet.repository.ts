import type { Selectable } from 'kysely'
import type { PetTable, Reader, Writer } from '../db/database.js'

export type PetRow = Selectable<PetTable>
export type PetStatus = PetTable['status']

export interface NewPetRow {
  name: string
  category_id: number
  status: PetStatus
}

export async function insertPet(trx: Writer, pet: NewPetRow): Promise<PetRow> {
  return trx.insertInto('pets').values(pet).returningAll().executeTakeFirstOrThrow()
}

export async function findPetById(db: Reader, id: number): Promise<PetRow | undefined> {
  return db.selectFrom('pets').selectAll().where('id', '=', id).executeTakeFirst()
}

export interface PetPageQuery {
  status: PetStatus | undefined
  /** Only pets with a greater id: the keyset cursor. */
  afterId: number | undefined
  limit: number
}

/** Pets in ascending id order. Served by the primary key, or by the (status, id) index when filtered. */
export async function listPets(db: Reader, query: PetPageQuery): Promise<PetRow[]> {
  let select = db.selectFrom('pets').selectAll().orderBy('id').limit(query.limit)
  if (query.status !== undefined) select = select.where('status', '=', query.status)
  if (query.afterId !== undefined) select = select.where('id', '>', query.afterId)
  return select.execute()
}

/**
 * Moves a pet from one status to another, only if it is still in `from`: true when it moved. The condition is
 * part of the update, so of several concurrent callers (processes included) exactly one succeeds: PostgreSQL
 * re-checks it after waiting for the row lock, and SQLite runs one write transaction at a time.
 */
export async function transitionPetStatus(trx: Writer, id: number, from: PetStatus, to: PetStatus): Promise<boolean> {
  const result = await trx.updateTable('pets').set({ status: to }).where('id', '=', id).where('status', '=', from).executeTakeFirst()
  return result.numUpdatedRows === 1n
}
