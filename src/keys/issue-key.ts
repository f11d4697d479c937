import type { DataAccess, Writer } from '../db/database.js'
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.js'
import { countApiKeys, insertApiKey, revokeApiKey, type ApiKeyRow } from './key.repository.js'
import { formatScopes, SCOPES, type Scope } from './scopes.js'

export interface IssueKeyOptions {
  /** What the key may do; every scope when absent. */
  scopes?: readonly Scope[]
  /** RFC 3339 UTC instant after which the key is refused; never when absent. */
  expiresAt?: string
}

/** Creates a key and stores only its digest. The key is returned once, to be shown once. */
export function issueApiKey(
  data: DataAccess,
  name: string,
  options: IssueKeyOptions = {},
): Promise<{ key: string; row: ApiKeyRow }> {
  return data.transaction((trx) => insertNewKey(trx, name, options))
}

/** Marks a key revoked. Returns the row as it is now, or undefined when no key has that id. */
export function revokeKey(data: DataAccess, id: number, revokedAt: string): Promise<ApiKeyRow | undefined> {
  return data.transaction((trx) => revokeApiKey(trx, id, revokedAt))
}

async function insertNewKey(
  trx: Writer,
  name: string,
  options: IssueKeyOptions,
): Promise<{ key: string; row: ApiKeyRow }> {
  const key = generateApiKey()
  const row = await insertApiKey(trx, {
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
export async function issueInitialKeyIfNone(
  data: DataAccess,
  staticKeys: readonly string[],
): Promise<{ key: string; id: number } | undefined> {
  if (staticKeys.length > 0) return undefined
  return data.transaction(async (trx) => {
    if ((await countApiKeys(trx)) > 0) return undefined
    const { key, row } = await insertNewKey(trx, 'initial', {})
    return { key, id: row.id }
  })
}
