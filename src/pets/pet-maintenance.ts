// Changing and deleting a pet, each inside the caller's unit of work. Both read the pet, decide (the caller's
// condition on its version, the rules of its orders), and then write only if the pet is still at the version
// read (`… where version = ?`): of concurrent writers that read the same version exactly one succeeds, from any
// number of processes, without locks. A writer that finds the pet changed since its read decides again on what
// it then reads, so every decision is made on the state its write replaces. Orders move the version too
// (transitionPetStatus), so a placed order can never slip in between a decision and its write.
import type { Writer } from '../db/database.js'
import type { UnitOfWork } from '../db/unit-of-work.js'
import { Conflict, Contended, NotFound, PreconditionFailed } from '../domain/errors.js'
import { conditionHolds, type VersionCondition } from '../domain/version-condition.js'
import { recordEvent } from '../events/event-log.js'
import { toPetEventData, toVersionedPet, type VersionedPet } from './pet.mapper.js'
import { deletePetAtVersion, findPetById, updatePetAtVersion, type PetChanges, type PetRow } from './pet.repository.js'
import type { PetOrders } from './pet-orders.js'
import type { PetPatch } from './pet.schema.js'

/**
 * Rounds of "read, decide, write if unchanged". A round is lost only to a change committed by someone else in
 * the meantime; losing this many in a row means the pet is changing faster than it can be read.
 */
const ATTEMPTS = 10

/** The pet as it is now, if the caller's condition holds; otherwise NotFound (no condition) or PreconditionFailed. */
async function currentPet(trx: Writer, id: number, condition: VersionCondition | undefined): Promise<PetRow> {
  const row = await findPetById(trx, id)
  if (!row) throw condition === undefined ? new NotFound('pet', id) : new PreconditionFailed('pet', id, undefined)
  if (condition !== undefined && !conditionHolds(condition, Number(row.version)))
    throw new PreconditionFailed('pet', id, Number(row.version))
  return row
}

/**
 * What the patch really changes: only values that differ, so that a patch changing nothing leaves the version as it is.
 */
function changesOf(row: PetRow, patch: PetPatch): PetChanges {
  const changes: PetChanges = {}
  if (patch.name !== undefined && patch.name !== row.name) changes.name = patch.name
  if (patch.categoryId !== undefined && patch.categoryId !== Number(row.category_id))
    changes.category_id = patch.categoryId
  if (patch.status !== undefined && patch.status !== row.status) changes.status = patch.status
  return changes
}

async function refuseWhilePlaced(
  orders: PetOrders,
  trx: Writer,
  id: number,
  refusal: (orderId: number) => string,
): Promise<void> {
  const orderId = await orders.placedOrderOf(trx, id)
  if (orderId !== undefined) throw new Conflict(refusal(orderId))
}

function tooBusy(id: number): Contended {
  return new Contended(id, ATTEMPTS)
}

export async function updatePetIn(
  orders: PetOrders,
  uow: UnitOfWork,
  id: number,
  patch: PetPatch,
  condition: VersionCondition | undefined,
): Promise<VersionedPet> {
  const { trx } = uow
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const row = await currentPet(trx, id, condition)
    const changes = changesOf(row, patch)
    if (Object.keys(changes).length === 0) return toVersionedPet(row)
    if (changes.status !== undefined) {
      await refuseWhilePlaced(
        orders,
        trx,
        id,
        (orderId) =>
          `Pet ${id} has a placed order (${orderId}): its status follows that order until it is completed or ` +
          'cancelled. Nothing was changed.',
      )
    }
    const updated = await updatePetAtVersion(trx, id, Number(row.version), changes)
    if (updated) {
      const pet = toVersionedPet(updated)
      await recordEvent(uow, 'pet.updated', toPetEventData(pet.pet))
      return pet
    }
  }
  throw tooBusy(id)
}

/** Deletes the pet (it stays stored, marked deleted, for its orders); returns its last state. */
export async function deletePetIn(
  orders: PetOrders,
  uow: UnitOfWork,
  id: number,
  condition: VersionCondition | undefined,
): Promise<VersionedPet> {
  const { trx } = uow
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const row = await currentPet(trx, id, condition)
    await refuseWhilePlaced(
      orders,
      trx,
      id,
      (orderId) =>
        `Pet ${id} has a placed order (${orderId}); complete or cancel it before deleting the pet. Nothing was ` +
        'changed.',
    )
    if (await deletePetAtVersion(trx, id, Number(row.version), new Date().toISOString())) {
      // The event carries the pet's last state; a patch that changed nothing (above) writes no event.
      const last = toVersionedPet(row)
      await recordEvent(uow, 'pet.deleted', toPetEventData(last.pet))
      return last
    }
  }
  throw tooBusy(id)
}
