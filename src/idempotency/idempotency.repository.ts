// Rows of idempotency_keys. Every write is conditional on what the caller last saw (the lease token and the
// state), so that of concurrent requests with one key, in any number of processes, exactly one holds it.
import type { Selectable } from 'kysely'
import type { IdempotencyKeyTable, Reader, Writer } from '../db/database.js'

export type IdempotencyKeyRow = Selectable<IdempotencyKeyTable>

export interface IdempotencyKeyOfApiKey {
  /** The API key that sent it (Principal.keyId): keys of different API keys never meet. */
  keyId: string
  idempotencyKey: string
}

export interface Acquisition {
  fingerprint: string
  leaseToken: string
  now: string
  leasedUntil: string
  expiresAt: string
}

export interface StoredResponse {
  status: number
  body: string
  headers: Record<string, string>
}

function acquiredValues({ fingerprint, leaseToken, now, leasedUntil, expiresAt }: Acquisition) {
  return {
    request_fingerprint: fingerprint,
    state: 'in_flight' as const,
    lease_token: leaseToken,
    leased_until: leasedUntil,
    response_status: null,
    response_body: null,
    response_headers: null,
    created_at: now,
    expires_at: expiresAt,
  }
}

/** Inserts the key as in_flight; false when the key already exists (the row is left as it is). */
export async function insertInFlightKey(
  trx: Writer,
  id: IdempotencyKeyOfApiKey,
  acquisition: Acquisition,
): Promise<boolean> {
  const inserted = await trx
    .insertInto('idempotency_keys')
    .values({ api_key_id: id.keyId, idempotency_key: id.idempotencyKey, ...acquiredValues(acquisition) })
    .onConflict((conflict) => conflict.columns(['api_key_id', 'idempotency_key']).doNothing())
    .returning('lease_token')
    .executeTakeFirst()
  return inserted !== undefined
}

export async function findKey(db: Reader, id: IdempotencyKeyOfApiKey): Promise<IdempotencyKeyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('api_key_id', '=', id.keyId)
    .where('idempotency_key', '=', id.idempotencyKey)
    .executeTakeFirst()
}

/**
 * Takes over a key that is expired or whose holder abandoned it, as a fresh in_flight key: true when this
 * caller got it, false when someone else changed the row since `seen` was read.
 */
export async function takeOverKey(
  trx: Writer,
  id: IdempotencyKeyOfApiKey,
  seen: Pick<IdempotencyKeyRow, 'lease_token' | 'state'>,
  acquisition: Acquisition,
): Promise<boolean> {
  const result = await trx
    .updateTable('idempotency_keys')
    .set(acquiredValues(acquisition))
    .where('api_key_id', '=', id.keyId)
    .where('idempotency_key', '=', id.idempotencyKey)
    .where('lease_token', '=', seen.lease_token)
    .where('state', '=', seen.state)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/** Stores the response of the holder's request: false when the caller no longer holds the key. */
export async function completeKey(
  trx: Writer,
  id: IdempotencyKeyOfApiKey,
  leaseToken: string,
  response: StoredResponse,
  expiresAt: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('idempotency_keys')
    .set({
      state: 'completed',
      leased_until: null,
      response_status: response.status,
      response_body: response.body,
      response_headers: JSON.stringify(response.headers),
      expires_at: expiresAt,
    })
    .where('api_key_id', '=', id.keyId)
    .where('idempotency_key', '=', id.idempotencyKey)
    .where('lease_token', '=', leaseToken)
    .where('state', '=', 'in_flight')
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/** Forgets an in_flight key its holder gives up (the request failed without a response worth replaying). */
export async function releaseKey(trx: Writer, id: IdempotencyKeyOfApiKey, leaseToken: string): Promise<void> {
  await trx
    .deleteFrom('idempotency_keys')
    .where('api_key_id', '=', id.keyId)
    .where('idempotency_key', '=', id.idempotencyKey)
    .where('lease_token', '=', leaseToken)
    .where('state', '=', 'in_flight')
    .execute()
}

/** Deletes up to `limit` keys that expired before `now`; returns how many it deleted. */
export async function deleteExpiredKeys(trx: Writer, now: string, limit: number): Promise<number> {
  const result = await trx
    .deleteFrom('idempotency_keys')
    .where((eb) =>
      eb(
        eb.refTuple('api_key_id', 'idempotency_key'),
        'in',
        eb
          .selectFrom('idempotency_keys')
          .select(['api_key_id', 'idempotency_key'])
          .where('expires_at', '<', now)
          .orderBy('expires_at')
          .limit(limit)
          .$asTuple('api_key_id', 'idempotency_key'),
      ),
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

export function storedResponseOf(row: IdempotencyKeyRow): StoredResponse | undefined {
  if (row.state !== 'completed' || row.response_status === null || row.response_body === null) return undefined
  return {
    status: row.response_status,
    body: row.response_body,
    headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>,
  }
}
