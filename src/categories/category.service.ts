// The categories use cases. Every write first takes the category writers' turn (takeCategoryWritersTurn): the
// category writes of all instances then run one at a time, each deciding on what the previous ones committed,
// so "the name is free" and "the id is above every one in use" hold when the write commits. Category writes
// are rare; pet writes never wait for that turn. A category created starts at the version just above the
// counter row's floor, which a delete raises to the deleted category's version: an id deleted and named again
// never repeats an ETag of the category it was.
import type { DataAccess, Writer } from '../db/database.js'
import { holdWritesTo } from '../db/table-locks.js'
import type { UnitOfWork } from '../db/unit-of-work.js'
import { Conflict, NotFound, PreconditionFailed } from '../domain/errors.js'
import { conditionHolds, type VersionCondition } from '../domain/version-condition.js'
import { recordEvent } from '../events/event-log.js'
import { pageOf, rowsToFetch, type Page } from '../http/pagination.js'
import { MAX_INT64_ID } from '../http/openapi/schema-primitives.js'
import {
  mayBeRefoldedKey,
  nameKey,
  toCategory,
  toCategoryEventData,
  toVersionedCategory,
  type VersionedCategory,
} from './category.mapper.js'
import * as repository from './category.repository.js'
import type { CategoryPageQuery, CategoryRow } from './category.repository.js'
import type { Category, NewCategory } from './category.schema.js'

export type { VersionedCategory }

/** What a PUT did: made the category (`created`) or gave it the name (renamed, or already so named). */
export interface PutOutcome extends VersionedCategory {
  created: boolean
}

/** The conditions of a PUT: If-Match's, and whether the category must not exist yet (If-None-Match: *). */
export interface PutConditions {
  ifMatch: VersionCondition | undefined
  onlyIfAbsent: boolean
}

export interface CategoryService {
  list(query: CategoryPageQuery): Promise<Page<Category>>
  /** The category and its version; NotFound when there is none with this id. */
  get(id: number): Promise<VersionedCategory>
  /** Adds a category under a new id, above every category id and every categoryId of a pet. */
  create(uow: UnitOfWork, input: NewCategory): Promise<VersionedCategory>
  /** Creates the category with this id, or renames it. A name another category has (ignoring case) is a Conflict. */
  put(uow: UnitOfWork, id: number, input: NewCategory, conditions: PutConditions): Promise<PutOutcome>
  /**
   * Deletes the category, if `condition` holds; a Conflict while a pet (not deleted) is in it.
   * Returns its last state.
   */
  delete(uow: UnitOfWork, id: number, condition: VersionCondition | undefined): Promise<VersionedCategory>
}

async function refuseTakenName(trx: Writer, name: string, exceptId?: number): Promise<string> {
  const key = nameKey(name)
  let holder = await repository.findCategoryByNameKey(trx, key)
  // An instance of an earlier version, serving during an upgrade, writes a name's key in its fold: a name it gave
  // that today's fold finds equal takes the free key now (as after a rename), so that the name is not given twice.
  if (holder === undefined && mayBeRefoldedKey(key)) {
    await repository.refoldKeptKey(trx, key)
    holder = await repository.findCategoryByNameKey(trx, key)
  }
  if (holder && Number(holder.id) !== exceptId)
    throw new Conflict(
      `Category ${holder.id} is named "${holder.name}": names are unique ignoring case. Nothing was changed.`,
    )
  return key
}

/** The category as it is now, if `condition` holds; otherwise NotFound (no condition) or PreconditionFailed. */
async function currentCategory(trx: Writer, id: number, condition: VersionCondition | undefined): Promise<CategoryRow> {
  const row = await repository.findCategoryById(trx, id)
  if (!row)
    throw condition === undefined ? new NotFound('category', id) : new PreconditionFailed('category', id, undefined)
  if (condition !== undefined && !conditionHolds(condition, Number(row.version)))
    throw new PreconditionFailed('category', id, Number(row.version))
  return row
}

async function createIn(uow: UnitOfWork, { name }: NewCategory): Promise<VersionedCategory> {
  const { trx } = uow
  const { lastId, versionFloor } = await repository.takeCategoryWritersTurn(trx)
  const key = await refuseTakenName(trx, name)
  // Pet writes in progress end first, and new ones wait for this create: no pet can take the id chosen below
  // between the look at the largest categoryId and the commit.
  await holdWritesTo(trx, 'pets')
  const id = Math.max(lastId, await repository.largestCategoryIdInUse(trx)) + 1
  if (id > MAX_INT64_ID)
    throw new Conflict(
      `No category id is left above ${id - 1}, the largest in use; choose one with PUT. Nothing was changed.`,
    )
  const row = await repository.insertCategory(trx, { id, name, name_key: key, version: versionFloor + 1 })
  await repository.noteCategoryIdHandedOut(trx, id)
  const created = toVersionedCategory(row)
  await recordEvent(uow, 'category.created', toCategoryEventData(created.category))
  return created
}

async function putIn(
  uow: UnitOfWork,
  id: number,
  { name }: NewCategory,
  conditions: PutConditions,
): Promise<PutOutcome> {
  const { trx } = uow
  const { versionFloor } = await repository.takeCategoryWritersTurn(trx)
  const row = await repository.findCategoryById(trx, id)
  if (!row) {
    if (conditions.ifMatch !== undefined) throw new PreconditionFailed('category', id, undefined)
    const key = await refuseTakenName(trx, name)
    const inserted = await repository.insertCategory(trx, { id, name, name_key: key, version: versionFloor + 1 })
    const created = toVersionedCategory(inserted)
    await repository.noteCategoryIdHandedOut(trx, id)
    await recordEvent(uow, 'category.created', toCategoryEventData(created.category))
    return { ...created, created: true }
  }
  if (conditions.onlyIfAbsent) throw new PreconditionFailed('category', id, Number(row.version), true)
  const current = await currentCategory(trx, id, conditions.ifMatch)
  // A name given again changes nothing: same version, no event.
  if (current.name === name) return { ...toVersionedCategory(current), created: false }
  const key = await refuseTakenName(trx, name, id)
  const renamed = await repository.renameCategory(trx, id, name, key)
  if (!renamed) throw new Error(`category ${id} vanished while its writers' turn was held`)
  if (key !== current.name_key) await repository.refoldKeptKey(trx, current.name_key)
  const outcome = toVersionedCategory(renamed)
  await recordEvent(uow, 'category.updated', toCategoryEventData(outcome.category))
  return { ...outcome, created: false }
}

async function deleteIn(
  uow: UnitOfWork,
  id: number,
  condition: VersionCondition | undefined,
): Promise<VersionedCategory> {
  const { trx } = uow
  await repository.takeCategoryWritersTurn(trx)
  const row = await currentCategory(trx, id, condition)
  // Pet writes in progress end first, and new ones wait for this delete: no pet can join the category
  // between the look below and the commit.
  await holdWritesTo(trx, 'pets')
  const petId = await repository.findPetIdInCategory(trx, id)
  if (petId !== undefined)
    throw new Conflict(
      `Category ${id} is used by pet ${petId} (and maybe others); move or delete its pets first. Nothing was changed.`,
    )
  await repository.deleteCategory(trx, id)
  await repository.refoldKeptKey(trx, row.name_key)
  const last = toVersionedCategory(row)
  await repository.raiseCategoryVersionFloor(trx, last.version)
  await recordEvent(uow, 'category.deleted', toCategoryEventData(last.category))
  return last
}

export function createCategoryService(data: DataAccess): CategoryService {
  return {
    async list(query) {
      const rows = await repository.listCategories(data.read, { ...query, limit: rowsToFetch(query.limit) })
      return pageOf(rows, query.limit, toCategory)
    },
    async get(id) {
      const row = await repository.findCategoryById(data.read, id)
      if (!row) throw new NotFound('category', id)
      return toVersionedCategory(row)
    },
    create: createIn,
    put: putIn,
    delete: deleteIn,
  }
}
