// A shop file of a schema before 0018_category_name_key_decomposed holds category names whose keys an earlier fold
// made, and may hold two names only the fold of today finds equal ("Straße" and "STRAẞE", "ΐ" and "Ϊ́", "ᾷ"
// and "ᾼ͂": see migrations 0016, 0017 and 0018). Its keys are worked out with the fold of its own schema, so that
// such a pair loads as the shop had it, and are then refolded as the migrations refold an upgraded database's: the
// same rows end with the same keys either way. A shop of any schema may keep such a pair (it was upgraded, or
// imported from such a file): a row keeps the key its file gives when an earlier fold gives its name that key, so
// that the shop's own export loads again, and every file's keys are refolded after the load, so that only a pair
// keeps one.
import { nameKey } from '../categories/category.mapper.js'
import type { MoveSession } from '../db/move-session.js'
// The fold of schemas from 0017 until 0018, frozen in the migration that introduced it.
import { foldedToTheEnd } from '../db/migrations/0017_category_name_key_composed.js'

const FIRST_SCHEMA_FOLDING_TWICE = '0016_category_name_key_sharp_s'
const FIRST_SCHEMA_FOLDING_TO_THE_END = '0017_category_name_key_composed'
const FIRST_SCHEMA_FOLDING_DECOMPOSED = '0018_category_name_key_decomposed'

const foldOnce = (text: string) => text.normalize('NFC').toUpperCase().toLowerCase()
const foldTwice = (text: string) => foldOnce(text).toUpperCase().toLowerCase()

/** The keys the folds of schemas up to `fileSchema` give `name`, the fold of `fileSchema` first. */
function keysOfSchema(name: string, fileSchema: string): string[] {
  if (fileSchema >= FIRST_SCHEMA_FOLDING_DECOMPOSED)
    return [nameKey(name), foldedToTheEnd(name), foldTwice(name), foldOnce(name)]
  if (fileSchema >= FIRST_SCHEMA_FOLDING_TO_THE_END) return [foldedToTheEnd(name), foldTwice(name), foldOnce(name)]
  if (fileSchema >= FIRST_SCHEMA_FOLDING_TWICE) return [foldTwice(name), foldOnce(name)]
  return [foldOnce(name)]
}

/**
 * The key of `name` in a file of `fileSchema`: `fileKey`, the one the file gives, if a fold of that schema or an
 * earlier one gives `name` that key (a name kept beside another, as the shop had it); otherwise the fold of the
 * file's schema, whatever the file says, so that a file edited by hand cannot load two names equal but for case.
 */
export function nameKeyOfSchema(name: string, fileSchema: string, fileKey: unknown): string {
  const keys = keysOfSchema(name, fileSchema)
  return keys.find((key) => key === fileKey) ?? (keys[0] as string)
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
export async function refoldCategoryKeys(session: MoveSession, fileSchema: string): Promise<void> {
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
