// An import refuses webhook secrets it could not open: sealed with another WEBHOOK_SECRET_KEY than the one set
// (and not with the key kept in the file's own database), they would fail every delivery after the move.
import type { SecretBox } from '../webhooks/secret-box.js'
import { STORED_KEY, signingSecretBox } from '../webhooks/secret-keys.js'
import type { Row } from '../db/move-session.js'

export class ForeignSecretError extends Error {}

export class SecretCheck {
  readonly #configured: Buffer | undefined
  #stored: Buffer | undefined
  #box: SecretBox | undefined

  constructor(configured: Buffer | undefined) {
    this.#configured = configured
  }

  /** Remembers the key kept in the database, when the file carries one (service_secrets comes first). */
  serviceSecret(row: Row): void {
    if (row.name === STORED_KEY && typeof row.value === 'string') this.#stored = Buffer.from(row.value, 'hex')
  }

  endpoint(row: Row): void {
    const key = this.#configured ?? this.#stored
    if (!key)
      throw new ForeignSecretError('the file holds webhook secrets but no key to open them: set WEBHOOK_SECRET_KEY')
    this.#box ??= signingSecretBox(key, this.#stored ? [this.#stored] : [])
    for (const sealed of [row.secret, row.previous_secret]) {
      if (typeof sealed !== 'string') continue
      try {
        this.#box.open(sealed)
      } catch {
        throw new ForeignSecretError(
          `webhook endpoint ${String(row.id)}'s secret was encrypted with another WEBHOOK_SECRET_KEY ` +
            'than the one set: ' +
            'set the key the source used',
        )
      }
    }
  }
}
