import type { Selectable } from 'kysely'
import type { PetTable, Reader, Writer } from '../db/database.js'

export type PetRow = Selectable<PetTable>
export type PetStatus = PetTable['status']

export interface NewPetRow {
  name: string
  category_id: number
  status: PetStatus
}

/** The columns a change of a pet may set. */
export type PetChanges = Partial<NewPetRow>

// Every function here but insertPet sees only pets that are not deleted: a deleted pet's row stays (its orders
// point at it, and its id must never be handed out again), but for reads and writes it does not exist.

export async function insertPet(trx: Writer, pet: NewPetRow): Promise<PetRow> {
  return trx.insertInto('pets').values(pet).returningAll().executeTakeFirstOrThrow()
}

export async function findPetById(db: Reader, id: number): Promise<PetRow | undefined> {
  return db.selectFrom('pets').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst()
}

/**
 * The query of the pets findPetById would give for each of `ids`, in one statement (PostgreSQL: `= any($1)`, one
 * text for any number of ids), unsent: the store sends it itself, with the data version (pet-reads.postgres.ts).
 */
export function petsByIdsQuery(db: Reader, ids: readonly number[]) {
  return db
    .selectFrom('pets')
    .selectAll()
    .where((eb) => eb('id', '=', eb.fn.any(eb.val([...ids]))))
    .where('deleted_at', 'is', null)
}

export interface PetPageQuery {
  status: PetStatus | undefined
  categoryId?: number | undefined
  /** Only pets with a greater id: the keyset cursor. */
  afterId: number | undefined
  limit: number
}

/**
 * Pets in ascending id order. Served by the primary key, or when filtered by the (status, id), (category_id, id)
 * or (category_id, status, id) index.
 */
export async function listPets(db: Reader, query: PetPageQuery): Promise<PetRow[]> {
  return petPageQuery(db, query).execute()
}

/** listPets's query unsent, for a store that sends it itself (PostgreSQL, with the data version). */
export function petPageQuery(db: Reader, query: PetPageQuery) {
  let select = db.selectFrom('pets').selectAll().where('deleted_at', 'is', null).orderBy('id').limit(query.limit)
  if (query.status !== undefined) select = select.where('status', '=', query.status)
  if (query.categoryId !== undefined) select = select.where('category_id', '=', query.categoryId)
  if (query.afterId !== undefined) select = select.where('id', '>', query.afterId)
  return select
}

/**
 * Moves a pet from one status to another, only if it is still in `from`: the pet as it now is, or undefined when
 * it did not move. The condition is part of the update, so of several concurrent callers (processes included)
 * exactly one succeeds: PostgreSQL re-checks it after waiting for the row lock, and SQLite runs one write
 * transaction at a time. The version moves with it: a status moved by an order is a change of the pet like any other.
 */
export async function transitionPetStatus(
  trx: Writer,
  id: number,
  from: PetStatus,
  to: PetStatus,
): Promise<PetRow | undefined> {
  return trx
    .updateTable('pets')
    .set((eb) => ({ status: to, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('status', '=', from)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

/**
 * Changes a pet only if it is still at `version` (and not deleted), moving it to the next version: the changed
 * row, or undefined when someone changed or deleted it since it was read at that version. As for
 * transitionPetStatus, of concurrent callers expecting the same version exactly one gets the row.
 */
export async function updatePetAtVersion(
  trx: Writer,
  id: number,
  version: number,
  changes: PetChanges,
): Promise<PetRow | undefined> {
  return trx
    .updateTable('pets')
    .set((eb) => ({ ...changes, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('version', '=', version)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

/** Marks a pet deleted, only if it is still at `version`: true when it was. */
export async function deletePetAtVersion(
  trx: Writer,
  id: number,
  version: number,
  deletedAt: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('pets')
    .set((eb) => ({ deleted_at: deletedAt, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('version', '=', version)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}
