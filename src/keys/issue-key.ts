import type { DbExecutor } from '../db/database.js'
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.js'
import { countApiKeys, insertApiKey, type ApiKeyRow } from './key.repository.js'
import { formatScopes, SCOPES, type Scope } from './scopes.js'

export interface IssueKeyOptions {
  /** What the key may do; every scope when absent. */
  scopes?: readonly Scope[]
  /** RFC 3339 UTC instant after which the key is refused; never when absent. */
  expiresAt?: string
}

/** Creates a key and stores only its digest. The key is returned once, to be shown once. */
export async function issueApiKey(db: DbExecutor, name: string, options: IssueKeyOptions = {}): Promise<{ key: string; row: ApiKeyRow }> {
  const key = generateApiKey()
  const row = await insertApiKey(db, {
    name,
    keyHash: hashApiKey(key),
    keyPrefix: displayPrefix(key),
    createdAt: new Date().toISOString(),
    scopes: formatScopes(options.scopes ?? SCOPES),
    expiresAt: options.expiresAt ?? null,
  })
  return { key, row }
}

/**
 * First run: with no static keys configured and no stored key, nobody could call the API, so one key is
 * created and returned to be printed. Every later start finds a stored key and returns undefined.
 */
export async function issueInitialKeyIfNone(db: DbExecutor, staticKeys: readonly string[]): Promise<string | undefined> {
  if (staticKeys.length > 0 || (await countApiKeys(db)) > 0) return undefined
  return (await issueApiKey(db, 'initial')).key
}
