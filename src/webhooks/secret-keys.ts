// The key that encrypts webhook secrets at rest: WEBHOOK_SECRET_KEY, or else one generated once and kept in the
// database (shared by every instance, like the cursor secret). The latter protects nothing against a copy of
// the database, hence the warning, given once webhooks are in use (at start-up when endpoints exist and their
// secrets open, or when the first one is registered), so that a service that never uses them says nothing about
// them, and one that refuses to start says only why. A key kept in the database before WEBHOOK_SECRET_KEY was set
// still opens the secrets it sealed; new ones are sealed with the configured key.
import { findSecret, loadOrCreateSecret } from '../db/secret.repository.js'
import type { DataAccess } from '../db/database.js'
import { createSecretBox, type SecretBox } from './secret-box.js'

/** The name in service_secrets of the key kept in the database. */
export const STORED_KEY = 'webhook-secret-key'

export interface WebhookSecretBoxes {
  /** Signing secrets in webhook_endpoints. */
  signingSecrets: SecretBox
  /** Stored idempotent responses that show a signing secret. */
  storedResponses: SecretBox
}

export interface WebhookKeyRing {
  /**
   * The boxes, once the key is at hand (the first call may create the database-kept key). The first call warns
   * when the key is the one kept in the database.
   */
  boxes(): Promise<WebhookSecretBoxes>
  /** The same boxes without the warning: for the start-up check, which may refuse to start instead. */
  boxesUnannounced(): Promise<WebhookSecretBoxes>
}

const KEPT_IN_DATABASE_WARNING =
  'WEBHOOK_SECRET_KEY is not set: webhook signing secrets are encrypted with a key kept in the same ' +
  'database, so a copy of the database alone reveals them. ' +
  'Set WEBHOOK_SECRET_KEY to 32 random bytes (e.g. openssl rand -hex 32), the same on every instance.'

/** The box of signing secrets: seals with `key`, opens what `key` or one of `older` sealed. */
export function signingSecretBox(key: Buffer, older: readonly Buffer[]): SecretBox {
  return createSecretBox(key, 'petstore webhook signing secret', older)
}

/** The box of stored idempotent responses that show a signing secret (registration, rotation). */
export function storedResponseBox(key: Buffer, older: readonly Buffer[]): SecretBox {
  return createSecretBox(key, 'petstore stored response', older)
}

export function webhookKeyRing(
  data: DataAccess,
  configured: Buffer | undefined,
  warn: (message: string) => void,
): WebhookKeyRing {
  async function load(): Promise<WebhookSecretBoxes> {
    let key: Buffer
    let older: Buffer[] = []
    if (configured) {
      key = configured
      const stored = await findSecret(data.read, STORED_KEY)
      if (stored) older = [stored]
    } else {
      key = await loadOrCreateSecret(data, STORED_KEY)
    }
    return {
      signingSecrets: signingSecretBox(key, older),
      storedResponses: storedResponseBox(key, older),
    }
  }
  let loading: Promise<WebhookSecretBoxes> | undefined
  // Tried again after a failure (the database was unreachable), not remembered as failed.
  const boxesUnannounced = () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined
      throw error
    }))
  let warned = configured !== undefined
  return {
    async boxes() {
      const boxes = await boxesUnannounced()
      if (!warned) {
        warned = true
        warn(KEPT_IN_DATABASE_WARNING)
      }
      return boxes
    },
    boxesUnannounced,
  }
}
