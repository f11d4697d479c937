// What JSON.parse accepts silently but the service refuses, found in one pass over a text JSON.parse has
// already accepted (so the scanner never meets a syntax error and needs no grammar of its own):
// - a number literal JSON.parse would round: 9007199254740993 would become 9007199254740992 and
//   1.0000000000000001 would become 1;
// - a key given twice in one object: JSON.parse keeps the last, while a proxy or a logger in front of the
//   service may keep the first and so see another request than the one carried out. Keys are compared after
//   their escapes are decoded (`"n\u0061me"` is `"name"`).
// The pass replaces the regular-expression scan for numbers it grew from: bench/json-parse.ts measures both.

/** `pointer`: where in the document, as a JSON pointer (RFC 6901): the number's own place, or the repeated key's. */
export type JsonProblem =
  { kind: 'inexact-number'; literal: string; pointer: string } | { kind: 'duplicate-key'; key: string; pointer: string }

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const MINUS = 0x2d
const PLUS = 0x2b
const DOT = 0x2e
const LOWER_E = 0x65
const UPPER_E = 0x45
const DIGIT_0 = 0x30
const DIGIT_9 = 0x39
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
/** Up to this many keys an object's keys are searched in a list; beyond, in a Set. */
const LIST_LIMIT = 8
/** Integers of up to 15 digits are exact: no need to convert them to know. */
const SURELY_SAFE_DIGITS = 15

const PLAIN_INTEGER = /^-?\d+$/

/** An object or array being read: its keys so far (objects) and where the reader is in it, for a pointer. */
interface Frame {
  keys: string[] | undefined
  keySet: Set<string> | undefined
  /** The key whose value is being read (objects), or the index of the element (arrays). */
  at: string | number
}

function isInexact(literal: string): boolean {
  const value = Number(literal)
  if (!Number.isFinite(value)) return true
  return Number.isInteger(value) && !(PLAIN_INTEGER.test(literal) && Number.isSafeInteger(value))
}

/** RFC 6901: `~` and `/` are written `~0` and `~1`. */
const pointer = (tokens: (string | number)[]) =>
  tokens.map((token) => `/${String(token).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')

// frames[0] is the top level; the last frame is the object or array being read.
/** The JSON pointer of a key of the innermost object. */
const keyPointer = (frames: Frame[], key: string) => pointer([...frames.slice(1, -1).map((frame) => frame.at), key])
/** The JSON pointer of the value being read. */
const valuePointer = (frames: Frame[]) => pointer(frames.slice(1).map((frame) => frame.at))

/** Records a key of the innermost object; false when the object already has it. */
function addKey(frame: Frame, key: string): boolean {
  frame.at = key
  if (frame.keySet) {
    if (frame.keySet.has(key)) return false
    frame.keySet.add(key)
    return true
  }
  const keys = frame.keys as string[]
  if (keys.includes(key)) return false
  keys.push(key)
  if (keys.length > LIST_LIMIT) frame.keySet = new Set(keys)
  return true
}

/** The first problem in a valid JSON text, in reading order, or undefined. */
export function findJsonProblem(json: string): JsonProblem | undefined {
  // frames[0] stands for the top level, so that the innermost frame always exists.
  const frames: Frame[] = [{ keys: undefined, keySet: undefined, at: 0 }]
  let frame = frames[0] as Frame
  let expectingKey = false
  const length = json.length
  let index = 0
  while (index < length) {
    const code = json.charCodeAt(index)
    if (code === QUOTE) {
      let end = index + 1
      let escaped = false
      for (;;) {
        const next = json.charCodeAt(end)
        if (next === QUOTE) break
        if (next === BACKSLASH) {
          escaped = true
          end += 2
        } else {
          end++
        }
      }
      if (expectingKey) {
        const key = escaped ? (JSON.parse(json.slice(index, end + 1)) as string) : json.slice(index + 1, end)
        if (!addKey(frame, key)) return { kind: 'duplicate-key', key, pointer: keyPointer(frames, key) }
        expectingKey = false
      }
      index = end + 1
    } else if (code === MINUS || (code >= DIGIT_0 && code <= DIGIT_9)) {
      let end = index + 1
      // A `-` after the first character belongs to an exponent, which the `e` before it has reported.
      let plainDigits = true
      for (;;) {
        const next = json.charCodeAt(end)
        if (next >= DIGIT_0 && next <= DIGIT_9) end++
        else if (next === DOT || next === LOWER_E || next === UPPER_E || next === PLUS || next === MINUS) {
          plainDigits = false
          end++
        } else break
      }
      if (!(plainDigits && end - index <= SURELY_SAFE_DIGITS)) {
        const literal = json.slice(index, end)
        if (isInexact(literal)) return { kind: 'inexact-number', literal, pointer: valuePointer(frames) }
      }
      index = end
    } else {
      if (code === OPEN_OBJECT) {
        frame = { keys: [], keySet: undefined, at: '' }
        frames.push(frame)
        expectingKey = true
      } else if (code === OPEN_ARRAY) {
        frame = { keys: undefined, keySet: undefined, at: 0 }
        frames.push(frame)
      } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
        frames.pop()
        frame = frames[frames.length - 1] as Frame
        expectingKey = false
      } else if (code === COMMA) {
        if (frame.keys) expectingKey = true
        else frame.at = (frame.at as number) + 1
      }
      index++
    }
  }
  return undefined
}
