// The one Database type both dialects share. Column names are snake_case in the database; rows are mapped
// to API objects by one mapper per resource, so these types never reach the HTTP layer.
import type SqliteDatabase from 'better-sqlite3'
import type { ColumnType, Generated, Kysely, Transaction } from 'kysely'

export interface PetTable {
  id: Generated<number>
  name: string
  category_id: number
  status: 'available' | 'pending' | 'sold'
}

export type OrderStatus = 'placed' | 'completed' | 'cancelled'

export interface OrderTable {
  id: Generated<number>
  pet_id: number
  quantity: number
  /** The requested ship date as an RFC 3339 UTC instant with milliseconds (`2026-05-01T08:00:00.000Z`), or null. */
  ship_date: string | null
  /** `complete` in the API is derived from this: true exactly when the order is completed. */
  status: OrderStatus
}

export interface ApiKeyTable {
  id: Generated<number>
  name: string
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string
  /** The first characters of the key (e.g. `pst_AbC1`), so an operator can tell keys apart. */
  key_prefix: string
  created_at: ColumnType<string, string, never>
  last_used_at: string | null
  revoked_at: string | null
  /** Space-separated scopes (`pets:read pets:write …`); the database fills in all four when none is given. */
  scopes: ColumnType<string, string | undefined, string>
  /** RFC 3339 UTC instant after which the key is refused, or null: it never expires. */
  expires_at: string | null
}

export interface ServiceSecretTable {
  name: string
  value: string
}

export type IdempotencyKeyState = 'in_flight' | 'completed'

/** One Idempotency-Key of one API key: held while its request runs, then the response that request got. */
export interface IdempotencyKeyTable {
  /** The API key's stable id (Principal.keyId): keys are scoped to the API key that sent them. */
  api_key_id: string
  idempotency_key: string
  /** SHA-256 (hex) of the request: method, route, path parameters and canonical JSON body. */
  request_fingerprint: string
  state: IdempotencyKeyState
  /** Random token written by each request that takes the key; only its holder may complete or release it. */
  lease_token: string
  /** ISO instant after which an in_flight key counts as abandoned (its process died); null once completed. */
  leased_until: string | null
  response_status: number | null
  response_body: string | null
  /** JSON object of the response headers a replay repeats (Location), or null. */
  response_headers: string | null
  created_at: string
  /** ISO instant after which the key is forgotten: it may be reused, and the purge deletes it. */
  expires_at: string
}

export interface Database {
  pets: PetTable
  orders: OrderTable
  api_keys: ApiKeyTable
  service_secrets: ServiceSecretTable
  idempotency_keys: IdempotencyKeyTable
}

export type Db = Kysely<Database>
export type DbTransaction = Transaction<Database>
/** What repositories accept: the database, or a transaction on it. */
export type DbExecutor = Db | DbTransaction

/** What services and routes need from the database, whichever store it is. */
export interface DataAccess {
  /** For reads outside transactions: sees committed data only. */
  read: Db
  /**
   * Runs `work` in one transaction and resolves only once that transaction is durably committed (so a
   * response sent after it never acknowledges a write that could still be lost). Rolls back if `work` throws.
   */
  transaction<T>(work: (trx: DbTransaction) => Promise<T>): Promise<T>
  /**
   * Where available (SQLite): a number that changes whenever anyone commits, for caches of reads. It counts
   * every commit acknowledged before the caller's request was received.
   */
  readVersion: (() => Promise<number>) | undefined
  /**
   * SQLite only (a file, not :memory:): the read connection itself, for the hottest reads, which run as
   * prepared statements without the query builder (pets/pet-json.sqlite.ts). It sees committed data only.
   */
  sqliteReader: SqliteDatabase.Database | undefined
}
