// Schemas shared by every resource: ids, the text rule of names and the empty query string.
import { Type } from 'typebox'

/**
 * int64 ids are limited to 1 … 2^53−1: the range every JSON client (JavaScript included) reads exactly.
 * A larger literal would be rounded by most parsers, so the service refuses it instead of storing a neighbour.
 */
export const MAX_INT64_ID = Number.MAX_SAFE_INTEGER

export const Int64Id = Type.Integer({ format: 'int64', minimum: 1, maximum: MAX_INT64_ID })

/** The query string of an operation that takes no parameters: any parameter is refused (400). */
export const NoQuery = Type.Object({}, { additionalProperties: false })

// Control characters and unpaired UTF-16 surrogates cannot be stored and read back unchanged by every
// database and client, so a name is printable Unicode text. It must also show something: a name made only of
// white space and invisible characters (U+200B, U+3164…) looks empty in every listing. Bidirectional overrides
// and isolates (U+202A–U+202E, U+2066–U+2069) are refused anywhere, as they make a name display as another
// text (`a\u202Eexe.txt`); the joiners of emoji and Indic scripts (U+200C, U+200D) and other format
// characters stay allowed inside a name.
const BIDI_CONTROLS = '\\u202A-\\u202E\\u2066-\\u2069'
const INVISIBLE = '\\p{White_Space}\\p{Cf}\\p{Default_Ignorable_Code_Point}'
/**
 * A visible name (an animal's, a category's): leading invisible characters, the first visible one, then
 * anything allowed. The first two classes are disjoint, so the expression matches in linear time whatever the
 * text (no backtracking blow-up).
 */
export const VISIBLE_NAME_PATTERN =
  `^(?:(?![\\p{Cc}${BIDI_CONTROLS}])[${INVISIBLE}])*` +
  `[^\\p{Cc}\\p{Cs}${INVISIBLE}][^\\p{Cc}\\p{Cs}${BIDI_CONTROLS}]*$`
/** The pattern's refusal in words (validation-details.ts). */
export const VISIBLE_NAME_RULE =
  'must contain a visible character, and no control characters, unpaired surrogates or bidirectional override ' +
  'and isolate characters (U+202A–U+202E, U+2066–U+2069)'
