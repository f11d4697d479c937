// Kinds whose values are secrets: a refusal says what is wrong and what is expected, never what the value is.
import { ConfigError } from './config-error.js'
import type { Kind } from './kinds.js'

// Visible ASCII only: a key is sent in an HTTP header, where anything else does not arrive reliably.
const STATIC_KEY = /^[\x21-\x2B\x2D-\x7E]{16,}$/

export const apiKeys: Kind<string[]> = {
  accepts: 'comma-separated keys, each at least 16 visible ASCII characters without white space',
  unset: () => [],
  parse(value, name) {
    if (value.trim() === '') return []
    const keys = value.split(',').map((key) => key.trim())
    keys.forEach((key, index) => {
      if (STATIC_KEY.test(key)) return
      // The message says which key is wrong and why, never what it is.
      const problem =
        key.length < 16
          ? `is ${key.length} characters long`
          : 'contains white space or a character outside visible ASCII'
      const expected = 'expected comma-separated keys, each at least 16 visible ASCII characters without white space'
      throw new ConfigError(name, `key ${index + 1} of ${keys.length} ${problem}; ${expected}`)
    })
    return [...new Set(keys)]
  },
}

// A bearer token: visible ASCII (it travels in a header), long enough not to be guessed within rate limits.
export const bearerToken: Kind<string | undefined> = {
  accepts: 'at least 16 visible ASCII characters without white space',
  unset: () => undefined,
  parse(value, name) {
    if (/^[\x21-\x7E]{16,}$/.test(value)) return value
    const problem = /[^\x21-\x7E]/.test(value)
      ? 'it contains white space or a character outside visible ASCII'
      : `it is ${value.length} characters long`
    throw new ConfigError(name, `${problem}; expected at least 16 visible ASCII characters without white space`)
  },
}

const SECRET_KEY =
  '32 random bytes as 64 hexadecimal characters or as base64 (e.g. the output of: openssl rand -hex 32)'

/** 32 bytes, as 64 hexadecimal characters or as base64 (44 characters with padding). */
export const secretKey: Kind<Buffer | undefined> = {
  accepts: SECRET_KEY,
  defaultText: 'a key kept in the database, with a warning',
  unset: () => undefined,
  parse(value, name) {
    const key = /^[0-9a-fA-F]{64}$/.test(value)
      ? Buffer.from(value, 'hex')
      : /^[A-Za-z0-9+/]{43}=?$/.test(value)
        ? Buffer.from(value, 'base64')
        : undefined
    if (key?.length !== 32)
      throw new ConfigError(name, `${SECRET_KEY}; the value given is ${value.length} characters long`)
    // One byte 32 times (all zeros, say) is an example's placeholder copied as it was, not a key: secrets sealed
    // with it are as good as unsealed to anyone who guesses so.
    if (key.every((byte) => byte === key[0]))
      throw new ConfigError(name, `${SECRET_KEY}; the value given repeats one byte, a placeholder rather than a key`)
    return key
  },
}
