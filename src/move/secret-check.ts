// An import refuses webhook secrets it could not open: sealed with another WEBHOOK_SECRET_KEY than the one set
// (and not with the key kept in the file's own database), they would fail every delivery after the move, and the
// stored responses that show one (an endpoint's registration, a rotation) every replay of an Idempotency-Key.
import type { SecretBox } from '../webhooks/secret-box.js'
import { STORED_KEY, signingSecretBox, storedResponseBox } from '../webhooks/secret-keys.js'
import type { Row } from '../db/move-session.js'

export class ForeignSecretError extends Error {}

export class SecretCheck {
  readonly #configured: Buffer | undefined
  #stored: Buffer | undefined
  #box: SecretBox | undefined
  #responses: SecretBox | undefined

  constructor(configured: Buffer | undefined) {
    this.#configured = configured
  }

  /** Remembers the key kept in the database, when the file carries one (service_secrets comes first). */
  serviceSecret(row: Row): void {
    if (row.name === STORED_KEY && typeof row.value === 'string') this.#stored = Buffer.from(row.value, 'hex')
  }

  endpoint(row: Row): void {
    this.#box ??= signingSecretBox(this.#key('webhook secrets'), this.#older())
    for (const sealed of [row.secret, row.previous_secret]) {
      if (typeof sealed === 'string') this.#open(this.#box, sealed, `webhook endpoint ${String(row.id)}'s secret`)
    }
  }

  /** A stored idempotent response is sealed when it shows a signing secret: its body is then not JSON. */
  storedResponse(row: Row): void {
    const body = row.response_body
    if (typeof body !== 'string' || !body.startsWith('v1.')) return
    this.#responses ??= storedResponseBox(this.#key('sealed stored responses'), this.#older())
    this.#open(this.#responses, body, `the stored response of Idempotency-Key ${JSON.stringify(row.idempotency_key)}`)
  }

  #key(what: string): Buffer {
    const key = this.#configured ?? this.#stored
    if (!key) throw new ForeignSecretError(`the file holds ${what} but no key to open them: set WEBHOOK_SECRET_KEY`)
    return key
  }

  #older(): Buffer[] {
    return this.#stored ? [this.#stored] : []
  }

  #open(box: SecretBox, sealed: string, what: string): void {
    try {
      box.open(sealed)
    } catch {
      // Unset, the only key tried was the one kept in the file: "than the one set" would name a key nobody set.
      throw new ForeignSecretError(
        this.#configured
          ? `${what} was encrypted with another WEBHOOK_SECRET_KEY than the one set: set the key the source used`
          : `${what} was encrypted with a WEBHOOK_SECRET_KEY, which is not set (the key kept in the file does not ` +
              'open it): set the key the source used',
      )
    }
  }
}
