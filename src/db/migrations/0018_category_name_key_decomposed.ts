import { sql, type Kysely } from 'kysely'

// Category names are unique ignoring case, compared by their folded key. The fold cased the composed (NFC) name,
// and a letter composed with a mark that has no capital form of its own upper-cases apart from its marks: "ᾼ͂"
// (capital alpha with prosgegrammeni, then a perispomeni: the title case of "ᾷ") and "ᾷ" got two keys, "αῖ" and
// "ᾶι". The fold now cases the decomposed (NFD) name and composes the result, as Unicode's canonical caseless match
// does, and the keys written before are refolded here.
//
// A category whose refolded key another category already has (both names were accepted before) keeps its key:
// both stay as they are, and no new name may join them. One row at a time, in id order, so that two keys that
// refold alike never both change.

/** One round of the fold before this migration: NFC, then upper and lower case twice. */
const composedRound = (text: string) => text.normalize('NFC').toUpperCase().toLowerCase().toUpperCase().toLowerCase()

/** One round as this migration writes it (frozen here: a later fold gets a migration of its own). */
const decomposedRound = (text: string) =>
  text.normalize('NFD').toUpperCase().toLowerCase().toUpperCase().toLowerCase().normalize('NFC')

/** `round` repeated until the key no longer changes, at most four times. */
function toTheEnd(round: (text: string) => string): (name: string) => string {
  return (name) => {
    let key = round(name)
    for (let rounds = 1; rounds < 4; rounds++) {
      const next = round(key)
      if (next === key) break
      key = next
    }
    return key
  }
}

/** Gives every category the key `fold` makes of its name, one row at a time in id order, unless another has it. */
async function refoldWith(db: Kysely<unknown>, fold: (name: string) => string): Promise<void> {
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
  await refoldWith(db, toTheEnd(decomposedRound))
}

// The keys go back to the earlier fold, which looks names up by it: otherwise a name refolded here could be given
// again beside itself by the earlier version.
export async function down(db: Kysely<unknown>): Promise<void> {
  await refoldWith(db, toTheEnd(composedRound))
}
