// Webhook signing secrets at rest. A secret is needed in clear to sign, so it cannot be stored as a digest like
// an API key; it is encrypted instead (AES-256-GCM) with a key from the configuration (WEBHOOK_SECRET_KEY), so
// that a copy of the database alone does not give the secrets away. Each sealed value names the key that
// sealed it (the first hex digits of the key's SHA-256), so a value sealed with another key is reported as
// such, and values sealed with an earlier key stay readable while that key is still at hand.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

const FORMAT = 'v1'
const IV_BYTES = 12
const TAG_BYTES = 16

export interface SecretBox {
  /** The text encrypted: `v1.<key id>.<iv>.<ciphertext and tag>` (base64url). */
  seal(plaintext: string): string
  /** The text `seal` encrypted; throws when it was sealed with a key that is not at hand, or was altered. */
  open(sealed: string): string
}

/** A value sealed with a key that is not at hand: `keyId` names the key that sealed it. */
export class UnknownKeyError extends Error {
  readonly keyId: string

  constructor(keyId: string) {
    super(`a stored secret was sealed with key ${keyId}, which is not configured (was WEBHOOK_SECRET_KEY changed?)`)
    this.name = 'UnknownKeyError'
    this.keyId = keyId
  }
}

/** A short, non-secret name of a key. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8)
}

/**
 * Seals with `key`; opens what `key` or one of `older` sealed. `purpose` is authenticated with every value, so a
 * value sealed for one purpose (a stored response) cannot be passed off as another (a signing secret).
 */
export function createSecretBox(key: Buffer, purpose: string, older: readonly Buffer[] = []): SecretBox {
  const keys = new Map([key, ...older].map((candidate) => [keyId(candidate), candidate]))
  const sealingId = keyId(key)
  const additionalData = Buffer.from(purpose)
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      cipher.setAAD(additionalData)
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `${FORMAT}.${sealingId}.${iv.toString('base64url')}.${sealed.toString('base64url')}`
    },
    open(text) {
      const [format, id = '', iv, sealed] = text.split('.')
      const openingKey = keys.get(id)
      if (format !== FORMAT || iv === undefined || sealed === undefined)
        throw new Error('a stored secret is not in the sealed format')
      if (!openingKey) throw new UnknownKeyError(id)
      const bytes = Buffer.from(sealed, 'base64url')
      const decipher = createDecipheriv('aes-256-gcm', openingKey, Buffer.from(iv, 'base64url'))
      decipher.setAAD(additionalData)
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      )
    },
  }
}

/** A new signing secret in Standard Webhooks' form: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}
