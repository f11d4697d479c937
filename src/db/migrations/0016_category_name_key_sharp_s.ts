import { sql, type Kysely } from 'kysely'

// Category names are unique ignoring case, compared by their folded key. The fold used to be one round of upper
// then lower case, which makes capital ẞ (U+1E9E) into ß while it makes ß and SS into ss: "STRAẞE" could be
// created beside "Straße". Keys are folded twice now, and the keys written before are refolded here: a ß in a key
// could only have come from a ẞ, and the second round makes it ss, which is all it changes (no other code point
// folds differently in a second round).
//
// A category whose refolded key another category already has (both names were accepted before) keeps its key:
// both stay as they are, and no new name may join them. One row at a time, in id order, so that two keys that
// refold alike never both change.
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ id: number | string; name_key: string }>`
    select id, name_key from categories where name_key like '%ß%' order by id`.execute(db)
  for (const { id, name_key: key } of rows) {
    const refolded = key.replaceAll('ß', 'ss')
    await sql`update categories set name_key = ${refolded} where id = ${id}
      and not exists (select 1 from categories as other where other.name_key = ${refolded})`.execute(db)
  }
}

// Nothing to undo: the earlier fold finds the refolded keys as they are, and only ever compared them for equality.
export async function down(): Promise<void> {}
