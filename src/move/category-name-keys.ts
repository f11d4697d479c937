// A shop file of a schema before 0016_category_name_key_sharp_s holds category names whose keys were folded once,
// and may hold two names that only the fold of today finds equal ("Straße" and "STRAẞE": see the migration). Its
// keys are worked out with the fold of its own schema, so that such a pair loads as the shop had it, and are then
// refolded as the migration refolds an upgraded database's: the same rows end with the same keys either way.
import { nameKey } from '../categories/category.mapper.js'
import type { MoveSession } from '../db/move-session.js'

const FIRST_SCHEMA_FOLDING_TWICE = '0016_category_name_key_sharp_s'

/** The key of `name` as a file of `fileSchema` was written with. */
export function nameKeyOfSchema(name: string, fileSchema: string): string {
  return fileSchema >= FIRST_SCHEMA_FOLDING_TWICE ? nameKey(name) : name.normalize('NFC').toUpperCase().toLowerCase()
}

/** After the load, before the commit: one row at a time in id order, as the migration does. */
export async function refoldCategoryKeysOfEarlierFile(session: MoveSession, fileSchema: string): Promise<void> {
  if (fileSchema >= FIRST_SCHEMA_FOLDING_TWICE) return
  const rows = await session.select(`select id, name_key from categories where name_key like '%ß%' order by id`, [])
  for (const { id, name_key: key } of rows) {
    const refolded = String(key).replaceAll('ß', 'ss')
    await session.run(
      `update categories set name_key = ${session.placeholder(1)} where id = ${session.placeholder(2)} and not ` +
        `exists (select 1 from categories as other where other.name_key = ${session.placeholder(3)})`,
      [refolded, id, refolded],
    )
  }
}
