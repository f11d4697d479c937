// Strict UTF-8 for request bodies. Buffer#toString('utf8') replaces what it cannot decode with U+FFFD, so a
// body with stray bytes, overlong forms (C0 AF for `/`) or encoded surrogates (CESU-8, ED A0 80) would be
// stored as something the client never sent, and the surrogate rule of the schemas bypassed. A fatal
// TextDecoder refuses all of those, as RFC 3629 does; the offset of the first bad byte is worked out only for
// the error. (bench/json-parse.ts: it decodes a typical body faster than buffer.isUtf8 followed by toString.)

// ignoreBOM keeps a leading byte order mark in the text, as toString did: the JSON parser decides about it.
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** The body as text, or undefined when its bytes are not well-formed UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes)
  } catch {
    return undefined
  }
}

/** The offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629 section 4), or -1. */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let index = 0
  while (index < bytes.length) {
    const lead = bytes[index] as number
    if (lead < 0x80) {
      index++
      continue
    }
    // The number of continuation bytes, and the range of the first one (which excludes overlong forms,
    // surrogates U+D800–U+DFFF and code points above U+10FFFF).
    let count: number
    let low = 0x80
    let high = 0xbf
    if (lead >= 0xc2 && lead <= 0xdf) count = 1
    else if (lead === 0xe0) [count, low] = [2, 0xa0]
    else if (lead === 0xed) [count, high] = [2, 0x9f]
    else if (lead >= 0xe1 && lead <= 0xef) count = 2
    else if (lead === 0xf0) [count, low] = [3, 0x90]
    else if (lead === 0xf4) [count, high] = [3, 0x8f]
    else if (lead >= 0xf1 && lead <= 0xf3) count = 3
    else return index
    for (let next = 1; next <= count; next++) {
      const byte = bytes[index + next]
      if (byte === undefined || byte < (next === 1 ? low : 0x80) || byte > (next === 1 ? high : 0xbf)) return index
    }
    index += count + 1
  }
  return -1
}
