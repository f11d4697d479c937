import { sql, type Kysely } from 'kysely'

// Category names are unique ignoring case, compared by their folded key. The fold was one NFC, then upper and
// lower case twice; case mapping can leave text that composes anew, so that names equal ignoring case got two
// keys: "ΐ" (U+0390) and "Ϊ́" (U+03AA, a combining acute), whose lower case ϊ + acute is ΐ; "Fuß́" and "FUSŚ".
// The fold now repeats that round until the key no longer changes, and the keys written before are refolded here.
//
// A category whose refolded key another category already has (both names were accepted before) keeps its key:
// both stay as they are, and no new name may join them. One row at a time, in id order, so that two keys that
// refold alike never both change.

/** The fold before this migration: one round of NFC, then upper and lower case twice. */
function foldedTwice(name: string): string {
  return name.normalize('NFC').toUpperCase().toLowerCase().toUpperCase().toLowerCase()
}

/** The fold as this migration writes it (frozen here: a later fold gets a migration of its own). */
export function foldedToTheEnd(name: string): string {
  let key = foldedTwice(name)
  for (let rounds = 1; rounds < 4; rounds++) {
    const next = foldedTwice(key)
    if (next === key) break
    key = next
  }
  return key
}

/** Gives every category the key `fold` makes of its name, one row at a time in id order, unless another has it. */
export async function refoldWith(db: Kysely<unknown>, fold: (name: string) => string): Promise<void> {
  const { rows } = await sql<{ id: number | string; name: string; name_key: string }>`
    select id, name, name_key from categories order by id`.execute(db)
  for (const { id, name, name_key: key } of rows) {
    const refolded = fold(name)
    if (refolded === key) continue
    await sql`update categories set name_key = ${refolded} where id = ${id}
      and not exists (select 1 from categories as other where other.name_key = ${refolded})`.execute(db)
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await refoldWith(db, foldedToTheEnd)
}

// The keys go back to the earlier fold, which looks names up by it: otherwise a name refolded here could be given
// again beside itself by the earlier version.
export async function down(db: Kysely<unknown>): Promise<void> {
  await refoldWith(db, foldedTwice)
}
