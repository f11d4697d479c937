// Decides whether a presented bearer key is valid, and who it belongs to.
import { timingSafeEqual } from 'node:crypto'
import type { DataAccess } from '../db/database.js'
import { VersionedCache } from '../db/versioned-cache.js'
import { hashApiKey, KEY_PREFIX } from './api-key.js'
import { ConnectionDigests } from './connection-digests.js'
import { findActiveApiKeyByHash, listActiveApiKeyHashes, touchApiKey, type ApiKeyRow } from './key.repository.js'
import { lastUseThrottle } from './last-use-throttle.js'
import { RecentDigests } from './recent-digests.js'
import type { Authenticator, Principal, Recollection } from '../http/auth/authenticator.js'
import { parseStoredScopes, SCOPES } from './scopes.js'
import { staticKeyId } from './static-key-id.js'

/** last_used_at is a hint for operators, so it is written at most this often per key, off the request path. */
const TOUCH_INTERVAL_MS = 60_000

/** How long a lookup's answer is remembered for `recall` (a revocation still takes effect at once: see there). */
const RECALL_MS = 10 * 60_000

/** Readings of every active key's digest (recallAfterReading) begin at most this often. */
const READING_INTERVAL_MS = 100

/** The shape of every stored key (generateApiKey): the prefix and 32 bytes in base64url, nothing else. */
const STORED_KEY_FORM = new RegExp(`^${KEY_PREFIX}[A-Za-z0-9_-]{43}$`)

export interface AuthenticatorOptions {
  /** Where keys are read (committed data only), and their last use written. */
  data: DataAccess
  /**
   * A number that changes whenever anyone commits (the store's data version), for the cache of stored keys; none: no
   * cache.
   */
  readVersion: (() => Promise<number>) | undefined
  staticKeys: readonly string[]
  onError: (error: unknown) => void
}

export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const staticKeys = options.staticKeys.map((key) => ({
    digest: Buffer.from(hashApiKey(key), 'hex'),
    principal: { keyId: staticKeyId(key), scopes: SCOPES } satisfies Principal,
  }))
  const touches = lastUseThrottle(TOUCH_INTERVAL_MS)
  // Active keys by digest, kept while nobody commits (the store's data version): a revocation, from this
  // process or from the CLI or another instance, is a commit, so it still takes effect on the very next request.
  // Unknown
  // digests are not kept (VersionedCache never keeps undefined), so a flood of bad keys cannot fill it.
  const activeKeys = new VersionedCache<ApiKeyRow | undefined>(options.readVersion)
  // Digests looked up lately, found or not: a key is never issued with a digest already presented, so "not
  // found" stays true. Only recall() reads these, to refuse cheaply at an address over its anonymous quota.
  const foundLately = new RecentDigests(RECALL_MS)
  const missedLately = new RecentDigests(RECALL_MS)

  function matchStatic(digest: Buffer): Principal | undefined {
    // Digests of equal length compared in constant time, every one of them, so timing says nothing.
    let match: Principal | undefined
    for (const candidate of staticKeys) {
      if (timingSafeEqual(candidate.digest, digest)) match = candidate.principal
    }
    return match
  }

  // The digests of every active stored key, read in one query (recallAfterReading), and when that reading began.
  let reading: { startedAt: number; digests: Promise<ReadonlySet<string>> } | undefined
  let nextReading: Promise<ReadonlySet<string>> | undefined

  function startReading(): { startedAt: number; digests: Promise<ReadonlySet<string>> } {
    const started = {
      startedAt: performance.now(),
      digests: listActiveApiKeyHashes(options.data.read).then((hashes) => new Set(hashes)),
    }
    reading = started
    return started
  }

  /** The digests of a reading that began at `since` or later: the next one, shared, no sooner than the interval. */
  function digestsReadSince(since: number): Promise<ReadonlySet<string>> {
    if (reading !== undefined && reading.startedAt >= since) return reading.digests
    if (nextReading === undefined) {
      const previous = reading
      // After the previous reading has ended, and no sooner than the interval after it began.
      const ready =
        previous === undefined
          ? Promise.resolve()
          : previous.digests.then(
              () => undefined,
              () => undefined,
            )
      nextReading = ready
        .then(() => {
          const wait = previous === undefined ? 0 : previous.startedAt + READING_INTERVAL_MS - performance.now()
          return wait > 0 ? new Promise<void>((resolve) => setTimeout(resolve, wait).unref()) : undefined
        })
        .then(() => {
          nextReading = undefined
          return startReading().digests
        })
    }
    return nextReading
  }

  const digests = new ConnectionDigests((hash) => matchStatic(Buffer.from(hash, 'hex')))

  function touch(id: number): void {
    if (!touches.due(id)) return
    const usedAt = new Date().toISOString()
    // In a transaction of its own, durable like every write; nobody waits for it.
    options.data.transaction((trx) => touchApiKey(trx, id, usedAt)).catch(options.onError)
  }

  function recall(presentedKey: string, connection?: object): Recollection {
    const { digest: hash, derived: staticMatch } = digests.of(presentedKey, connection)
    if (staticMatch) return 'valid'
    if (!STORED_KEY_FORM.test(presentedKey)) return 'invalid'
    const now = performance.now()
    if (missedLately.has(hash, now)) return 'invalid'
    return foundLately.has(hash, now) ? 'valid' : 'unknown'
  }

  return {
    async authenticate(presentedKey, connection) {
      const { digest: hash, derived: staticMatch } = digests.of(presentedKey, connection)
      if (staticMatch) return staticMatch
      // Looked up by digest: an index probe on a SHA-256 reveals nothing usable about the key.
      // Checked on every request, so revocation and expiry take effect at once, on every instance.
      const row = await activeKeys.get(hash, () => findActiveApiKeyByHash(options.data.read, hash))
      // An expired key is refused exactly like a revoked one: the client learns only that it is not valid.
      if (!row || (row.expires_at !== null && !(Date.parse(row.expires_at) > Date.now()))) {
        foundLately.delete(hash)
        missedLately.add(hash, performance.now())
        return undefined
      }
      foundLately.add(hash, performance.now())
      touch(row.id)
      return { keyId: String(row.id), scopes: parseStoredScopes(row.scopes) }
    },
    staticKey(presentedKey, connection) {
      return digests.of(presentedKey, connection).derived
    },
    recall,
    async recallAfterReading(presentedKey, connection, since) {
      const recalled = recall(presentedKey, connection)
      if (recalled !== 'unknown') return recalled
      const { digest: hash } = digests.of(presentedKey, connection)
      if ((await digestsReadSince(since)).has(hash)) return 'valid'
      // Not active when the reading began, after the request arrived: a key is never issued with this digest.
      missedLately.add(hash, performance.now())
      return 'invalid'
    },
  }
}
