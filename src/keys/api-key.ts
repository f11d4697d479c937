import { createHash, randomBytes } from 'node:crypto'

/** Recognisable by secret scanners and people alike. */
export const KEY_PREFIX = 'pst_'

/** 32 random bytes (256 bits) in base64url: guessing is hopeless, so one SHA-256 round is the right hash. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url')
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

/** What an operator sees instead of the key: enough to tell keys apart, useless to an attacker. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 4)
}
