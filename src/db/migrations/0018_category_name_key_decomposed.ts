import type { Kysely } from 'kysely'
import { foldedToTheEnd, refoldWith } from './0017_category_name_key_composed.js'

// Category names are unique ignoring case, compared by their folded key. The fold cased the composed (NFC) name,
// and a letter composed with a mark that has no capital form of its own upper-cases apart from its marks: "ᾼ͂"
// (capital alpha with prosgegrammeni, then a perispomeni: the title case of "ᾷ") and "ᾷ" got two keys, "αῖ" and
// "ᾶι". The fold now cases the decomposed (NFD) name and composes the result, as Unicode's canonical caseless match
// does, and the keys written before are refolded here.
//
// A category whose refolded key another category already has (both names were accepted before) keeps its key:
// both stay as they are, and no new name may join them. One row at a time, in id order, so that two keys that
// refold alike never both change.

/** One round as this migration writes it (frozen here: a later fold gets a migration of its own). */
const decomposedRound = (text: string) =>
  text.normalize('NFD').toUpperCase().toLowerCase().toUpperCase().toLowerCase().normalize('NFC')

/** That round repeated until the key no longer changes, at most four times. */
function decomposedToTheEnd(name: string): string {
  let key = decomposedRound(name)
  for (let rounds = 1; rounds < 4; rounds++) {
    const next = decomposedRound(key)
    if (next === key) break
    key = next
  }
  return key
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await refoldWith(db, decomposedToTheEnd)
}

// The keys go back to the earlier fold, which looks names up by it: otherwise a name refolded here could be given
// again beside itself by the earlier version.
export async function down(db: Kysely<unknown>): Promise<void> {
  await refoldWith(db, foldedToTheEnd)
}
