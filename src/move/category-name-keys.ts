// A shop file of a schema before 0017_category_name_key_composed holds category names whose keys an earlier fold
// made, and may hold two names that only the fold of today finds equal ("Straße" and "STRAẞE", "ΐ" and "Ϊ́": see
// migrations 0016 and 0017). Its keys are worked out with the fold of its own schema, so that such a pair loads as
// the shop had it, and are then refolded as the migrations refold an upgraded database's: the same rows end with
// the same keys either way.
import { nameKey } from '../categories/category.mapper.js'
import type { MoveSession } from '../db/move-session.js'

const FIRST_SCHEMA_FOLDING_TWICE = '0016_category_name_key_sharp_s'
const FIRST_SCHEMA_FOLDING_TO_THE_END = '0017_category_name_key_composed'

const foldOnce = (text: string) => text.normalize('NFC').toUpperCase().toLowerCase()
const foldTwice = (text: string) => foldOnce(text).toUpperCase().toLowerCase()

/** The key of `name` as a file of `fileSchema` was written with. */
export function nameKeyOfSchema(name: string, fileSchema: string): string {
  if (fileSchema >= FIRST_SCHEMA_FOLDING_TO_THE_END) return nameKey(name)
  if (fileSchema >= FIRST_SCHEMA_FOLDING_TWICE) return foldTwice(name)
  return foldOnce(name)
}

/** Sets `key` on the category `id` unless another category has it already. */
async function refoldUnlessTaken(session: MoveSession, id: unknown, key: string): Promise<void> {
  await session.run(
    `update categories set name_key = ${session.placeholder(1)} where id = ${session.placeholder(2)} and not ` +
      `exists (select 1 from categories as other where other.name_key = ${session.placeholder(3)})`,
    [key, id, key],
  )
}

/** After the load, before the commit: one row at a time in id order, as the migrations do. */
export async function refoldCategoryKeysOfEarlierFile(session: MoveSession, fileSchema: string): Promise<void> {
  if (fileSchema >= FIRST_SCHEMA_FOLDING_TO_THE_END) return
  if (fileSchema < FIRST_SCHEMA_FOLDING_TWICE) {
    const rows = await session.select(`select id, name_key from categories where name_key like '%ß%' order by id`, [])
    for (const { id, name_key: key } of rows) await refoldUnlessTaken(session, id, String(key).replaceAll('ß', 'ss'))
  }
  const rows = await session.select(`select id, name, name_key from categories order by id`, [])
  for (const { id, name, name_key: key } of rows) {
    const refolded = nameKey(String(name))
    if (refolded !== key) await refoldUnlessTaken(session, id, refolded)
  }
}
