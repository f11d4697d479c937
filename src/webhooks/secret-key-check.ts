// A WEBHOOK_SECRET_KEY that does not open the stored signing secrets (changed, mistyped, or set on one
// instance and not another) would otherwise be found only at the first delivery, which fails, and every one
// after it. The service refuses to start instead, naming the variable. One secret is tried, the newest
// endpoint's: the one most likely sealed with the key in use now, so that an old endpoint whose secret was
// sealed with a key since given up does not keep the whole service from starting.
import type { Reader } from '../db/database.js'
import { UnknownKeyError, type SecretBox } from './secret-box.js'

/** The refusal: one line for the operator, naming the variable and the fix. */
class WebhookSecretKeyError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'WebhookSecretKeyError'
  }
}

/** The newest endpoint's id and sealed secret; undefined when no endpoint is registered. */
async function newestSecret(db: Reader): Promise<{ id: number; secret: string } | undefined> {
  return db.selectFrom('webhook_endpoints').select(['id', 'secret']).orderBy('id', 'desc').limit(1).executeTakeFirst()
}

/**
 * Throws a WebhookSecretKeyError when an endpoint exists and `box` (which holds every key at hand: the
 * configured one and the one kept in the database, if any) cannot open its secret. `configured`: whether
 * WEBHOOK_SECRET_KEY is set. Resolves to whether an endpoint exists.
 */
export async function refuseUnopenableSecrets(
  db: Reader,
  box: () => Promise<SecretBox>,
  configured: boolean,
): Promise<boolean> {
  const newest = await newestSecret(db)
  if (!newest) return false
  const opener = await box()
  try {
    opener.open(newest.secret)
  } catch (error) {
    const reason =
      error instanceof UnknownKeyError
        ? `was sealed with key ${error.keyId}, which is not at hand ` +
          "(a key's id is the first 8 hex digits of its SHA-256)"
        : 'does not decrypt with the key that sealed it: the stored value was altered'
    const subject = configured
      ? 'WEBHOOK_SECRET_KEY does not open the stored webhook secrets'
      : 'WEBHOOK_SECRET_KEY is not set, and the key kept in the database does not open the stored webhook secrets'
    throw new WebhookSecretKeyError(
      `${subject}: webhook endpoint ${newest.id}'s secret ${reason}. ` +
        'Set WEBHOOK_SECRET_KEY to the key that sealed them: without it every delivery would fail',
      { cause: error },
    )
  }
  return true
}
