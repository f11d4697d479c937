// The one Database type both dialects share. Column names are snake_case in the database; rows are mapped
// to API objects by one mapper per resource, so these types never reach the HTTP layer.
import type { ColumnType, Generated, Kysely, Transaction } from 'kysely'

export interface PetTable {
  id: Generated<number>
  name: string
  category_id: number
  status: 'available' | 'pending' | 'sold'
  /** 1 when created, one higher after every change of the pet (its ETag is made from it). */
  version: Generated<number>
  /** When the pet was deleted (RFC 3339 UTC instant), or null: a deleted pet is kept for its orders, never shown. */
  deleted_at: ColumnType<string | null, string | null | undefined, string | null>
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

export type EventType =
  | 'pet.created'
  | 'pet.updated'
  | 'pet.deleted'
  | 'order.placed'
  | 'order.cancelled'
  | 'order.completed'
  | 'category.created'
  | 'category.updated'
  | 'category.deleted'

/** A named category; its id is chosen by the service (categories/), never by the database. */
export interface CategoryTable {
  id: number
  name: string
  /** The name case-folded (categories/category.mapper.ts): unique, so names differ in more than case. */
  name_key: string
  version: Generated<number>
}

/** One row: the largest category id handed out so far, and the version every category created starts above. */
export interface CategoryIdCounterTable {
  last_id: number
  /** At least the last version of every category deleted (migration 0014 says why). */
  version_floor: number
}

/** One change, written in the change's own transaction (events/). */
export interface EventTable {
  /**
   * Consecutive, in the order readers may see events: assigned at insert (SQLite), or by the numbering once the
   * event has committed (PostgreSQL: the event waits in event_inbox until then), see events/event.repository.ts.
   */
  id: ColumnType<number, number | undefined, never>
  type: EventType
  /** RFC 3339 UTC instant with milliseconds. */
  occurred_at: string
  /** The event's `data` (`{"pet": …}` or `{"order": …}`) as JSON text, exactly as the feed sends it. */
  data: string
}

/** One row: every event with an id up to `purged_through` has been deleted by the retention purge. */
export interface EventRetentionTable {
  purged_through: number
}

export type WebhookStatus = 'enabled' | 'disabled'

/** A receiver of webhooks (webhooks/): where to POST which events, and the secrets that sign them. */
export interface WebhookEndpointTable {
  id: Generated<number>
  /** An http(s) URL, as normalised by the WHATWG URL parser. */
  url: string
  /** The subscribed event types as `,pet.created,order.placed,` (the fan-out matches `,type,`), or null: every type. */
  types: string | null
  description: string | null
  status: WebhookStatus
  /** The signing secret (`whsec_…`), encrypted (webhooks/secret-box.ts): never stored in clear. */
  secret: string
  /** After a rotation: the previous secret, encrypted, which keeps signing beside the new one until it expires. */
  previous_secret: string | null
  previous_secret_expires_at: string | null
  created_at: string
  updated_at: string
  /**
   * The newest readable event when the endpoint was registered or last enabled: it receives the events after it
   * (those the fan-out reaches while it is enabled).
   */
  receives_after: ColumnType<number, number, number>
}

/** One row: the last event whose deliveries have been created (webhooks/delivery/fan-out.repository.ts). */
export interface WebhookFanOutTable {
  position: number
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed'

/**
 * One event to one endpoint: created by the deliverer's fan-out from the event feed
 * (webhooks/delivery/fan-out.repository.ts).
 */
export interface WebhookDeliveryTable {
  id: Generated<number>
  endpoint_id: number
  event_id: number
  status: DeliveryStatus
  /** Attempts begun, the one in progress included. */
  attempts: ColumnType<number, number | undefined, number>
  /**
   * Epoch milliseconds, while pending: when the next attempt is due, or, while an attempt holds the lease,
   * when the lease ends (and another instance may retry). Null once finished.
   */
  due_at: number | null
  /** The holder of the lease while an attempt is in progress; null otherwise. */
  lease_token: string | null
  created_at: string
  finished_at: string | null
}

export type AttemptOutcome =
  | 'succeeded'
  | 'unexpected_status'
  | 'timed_out'
  | 'network_error'
  | 'destination_refused'
  | 'interrupted'
  | 'event_gone'
  | 'internal_error'

/** One attempt of a delivery, once it has ended: the delivery log. */
export interface WebhookAttemptTable {
  delivery_id: number
  attempt: number
  started_at: string
  duration_ms: number
  outcome: AttemptOutcome
  response_status: number | null
  error: string | null
  /** The start of the response body (at most 4 KiB), as text. */
  response_body: string | null
}

export interface Database {
  pets: PetTable
  categories: CategoryTable
  category_id_counter: CategoryIdCounterTable
  orders: OrderTable
  api_keys: ApiKeyTable
  service_secrets: ServiceSecretTable
  idempotency_keys: IdempotencyKeyTable
  events: EventTable
  event_retention: EventRetentionTable
  webhook_endpoints: WebhookEndpointTable
  webhook_fan_out: WebhookFanOutTable
  webhook_deliveries: WebhookDeliveryTable
  webhook_attempts: WebhookAttemptTable
}

/**
 * Reads, outside a transaction or inside one. Only selects (`selectFrom`, `selectNoFrom`): a write needs a
 * transaction (`Writer`), so that no write can resolve before it is durable (on SQLite a plain write would join
 * whatever group-commit batch is open and be acknowledged before that batch commits).
 */
export type Reader = Pick<Kysely<Database>, 'selectFrom' | 'selectNoFrom'>

/** A write transaction, the only handle that writes: repositories' write functions take it. */
export type Writer = Transaction<Database>

/** All a service sees of the store, whichever it is. */
export interface DataAccess {
  /** For reads outside transactions: sees committed data only. */
  read: Reader
  /**
   * Runs `work` in one transaction and resolves only once that transaction is durably committed (so a
   * response sent after it never acknowledges a write that could still be lost). Rolls back if `work` throws.
   * `work` acts only through its transaction: after a rollback the store may run it again (PostgreSQL does
   * when a migration made a prepared statement stale, see postgres-statements.ts).
   */
  transaction<T>(work: (trx: Writer) => Promise<T>): Promise<T>
  /** Told of the types of the events a unit of work recorded, once it has durably committed (runUnitOfWork). */
  committed?(types: readonly EventType[]): void
}
