import type { Selectable } from 'kysely'
import type { ApiKeyTable, Reader, Writer } from '../db/database.js'

export type ApiKeyRow = Selectable<ApiKeyTable>

export async function insertApiKey(
  trx: Writer,
  key: {
    name: string
    keyHash: string
    keyPrefix: string
    createdAt: string
    scopes: string
    expiresAt: string | null
  },
): Promise<ApiKeyRow> {
  return trx
    .insertInto('api_keys')
    .values({
      name: key.name,
      key_hash: key.keyHash,
      key_prefix: key.keyPrefix,
      created_at: key.createdAt,
      scopes: key.scopes,
      expires_at: key.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** A key that is not revoked; whether it has expired is for the caller to decide, against its own clock. */
export async function findActiveApiKeyByHash(db: Reader, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
}

/** The digests of every key that is not revoked (expired ones included): what `recall` knows of valid keys. */
export async function listActiveApiKeyHashes(db: Reader): Promise<string[]> {
  const rows = await db.selectFrom('api_keys').select('key_hash').where('revoked_at', 'is', null).execute()
  return rows.map((row) => row.key_hash)
}

export async function listApiKeys(db: Reader): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().orderBy('id').execute()
}

export async function countApiKeys(db: Reader): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Marks a key revoked. Returns the row as it is now, or undefined when no key has that id. */
export async function revokeApiKey(trx: Writer, id: number, revokedAt: string): Promise<ApiKeyRow | undefined> {
  await trx
    .updateTable('api_keys')
    .set({ revoked_at: revokedAt })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute()
  return trx.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function touchApiKey(trx: Writer, id: number, usedAt: string): Promise<void> {
  await trx.updateTable('api_keys').set({ last_used_at: usedAt }).where('id', '=', id).execute()
}

/** Removes a key that was never used (a first-run key nobody could see); a key used since stays. */
export async function deleteUnusedApiKey(trx: Writer, id: number): Promise<void> {
  await trx.deleteFrom('api_keys').where('id', '=', id).where('last_used_at', 'is', null).execute()
}
