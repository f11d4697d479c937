import type { Selectable } from 'kysely'
import type { CategoryTable, Reader, Writer } from '../db/database.js'
import { mayBeRefoldedKey, nameKey } from './category.mapper.js'

export type CategoryRow = Selectable<CategoryTable>

export interface CategoryPageQuery {
  /** Only categories with a greater id: the keyset cursor. */
  afterId: number | undefined
  limit: number
}

export async function findCategoryById(db: Reader, id: number): Promise<CategoryRow | undefined> {
  return db.selectFrom('categories').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The category whose case-folded name is `key`, if any (the unique index on name_key serves it). */
export async function findCategoryByNameKey(db: Reader, key: string): Promise<CategoryRow | undefined> {
  return db.selectFrom('categories').selectAll().where('name_key', '=', key).executeTakeFirst()
}

/** Categories in ascending id order, by the primary key. */
export async function listCategories(db: Reader, { afterId, limit }: CategoryPageQuery): Promise<CategoryRow[]> {
  let select = db.selectFrom('categories').selectAll().orderBy('id').limit(limit)
  if (afterId !== undefined) select = select.where('id', '>', afterId)
  return select.execute()
}

/** What the counter row holds: the largest category id handed out, and the version new categories start above. */
export interface CategoryCounter {
  lastId: number
  versionFloor: number
}

/**
 * Takes the category writers' turn: the counter row's lock, held until `trx` ends, so that on PostgreSQL the
 * category writes of all instances run one after another (SQLite has one writer anyway), each reading what
 * the previous one committed. Returns the counter row as it is.
 */
export async function takeCategoryWritersTurn(trx: Writer): Promise<CategoryCounter> {
  const row = await trx
    .updateTable('category_id_counter')
    .set((eb) => ({ last_id: eb.ref('last_id') }))
    .returning(['last_id', 'version_floor'])
    .executeTakeFirstOrThrow()
  return { lastId: Number(row.last_id), versionFloor: Number(row.version_floor) }
}

/** Records `id` as handed out, if it is larger than every id handed out before. */
export async function noteCategoryIdHandedOut(trx: Writer, id: number): Promise<void> {
  await trx.updateTable('category_id_counter').set({ last_id: id }).where('last_id', '<', id).execute()
}

/** The largest id of a category and the largest categoryId of any pet (deleted ones too), 0 when none. */
export async function largestCategoryIdInUse(trx: Writer): Promise<number> {
  // Each an index's last entry: the primary key, and the pets' (category_id, id) index.
  const category = await trx
    .selectFrom('categories')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst()
  const pet = await trx
    .selectFrom('pets')
    .select((eb) => eb.fn.max('category_id').as('id'))
    .executeTakeFirst()
  return Math.max(Number(category?.id ?? 0), Number(pet?.id ?? 0))
}

/**
 * Raises the floor new categories' versions start above to `version` (a deleted category's last), if it is
 * below: the id may be named again, and its versions must not repeat.
 */
export async function raiseCategoryVersionFloor(trx: Writer, version: number): Promise<void> {
  await trx
    .updateTable('category_id_counter')
    .set({ version_floor: version })
    .where('version_floor', '<', version)
    .execute()
}

export async function insertCategory(trx: Writer, row: CategoryRow): Promise<CategoryRow> {
  return trx.insertInto('categories').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function renameCategory(
  trx: Writer,
  id: number,
  name: string,
  key: string,
): Promise<CategoryRow | undefined> {
  return trx
    .updateTable('categories')
    .set((eb) => ({ name, name_key: key, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

/**
 * After `freed` stopped being a category's key (a rename, a delete): a category kept with a key of an earlier fold
 * because another had the key of today's (migrations 0016 and 0017: "STRAẞE" kept as straße beside "Straße",
 * strasse) takes `freed` when its name folds to it today, the lowest id first, as the migrations would have chosen.
 * Its name is then the one a new name equal to it meets, so none joins it.
 */
export async function refoldKeptKey(trx: Writer, freed: string): Promise<void> {
  if (!mayBeRefoldedKey(freed)) return
  // A kept key cannot be told from its name in SQL, so the names are folded here: every category is read, by a
  // rename or delete of a name holding ss or a combining mark, or a write of such a name no category holds, only;
  // category writes are rare.
  const rows = await trx.selectFrom('categories').select(['id', 'name', 'name_key']).orderBy('id').execute()
  const kept = rows.find((row) => row.name_key !== freed && nameKey(row.name) === freed)
  if (kept !== undefined)
    await trx.updateTable('categories').set({ name_key: freed }).where('id', '=', kept.id).execute()
}

export async function deleteCategory(trx: Writer, id: number): Promise<void> {
  await trx.deleteFrom('categories').where('id', '=', id).execute()
}

/** The id of a pet (not deleted) in the category, if any: by the (category_id, id) index. */
export async function findPetIdInCategory(trx: Writer, categoryId: number): Promise<number | undefined> {
  const row = await trx
    .selectFrom('pets')
    .select('id')
    .where('category_id', '=', categoryId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
  return row === undefined ? undefined : Number(row.id)
}
