// What a shop is made of: every table that must move for the shop to continue, in the order they are written
// and loaded (a table comes after the tables it refers to). Adding a table is one entry here.
import type { Row } from '../db/move-session.js'
import { nameKeyOfSchema } from './category-name-keys.js'
import type { ColumnKind } from './columns.js'
import { withoutNul } from '../webhooks/delivery/receiver-answer.js'
import { NUMBERING_ORDER } from '../db/postgres/number-events.js'

export interface TableEntry {
  name: string
  /** Every column that moves, and how its values are written (columns.ts). */
  columns: Readonly<Record<string, ColumnKind>>
  /** The primary key: rows are read in pages in its order. Empty for a table of one row. */
  key: readonly string[]
  /** The column whose values the database hands out: its counter moves too, so no id is handed out twice. */
  counter?: string
  /**
   * Rows the migrations (or a first start) create in an empty database: the file's replace them, when it has the
   * table (a file of an earlier schema may not).
   */
  replaced?: boolean
  /** A column holding an RFC 3339 instant: rows whose instant has passed are of no use and stay behind. */
  expiresAt?: string
  /**
   * PostgreSQL only: rows waiting in another table for their key (events committed but not numbered yet, in
   * event_inbox) are written after the others with a null key, in `order`, the order they will be numbered in.
   * Loaded with a null key, they wait again and are numbered after the import commits (SQLite hands them the
   * next ids as they are inserted), so none is left behind.
   */
  waiting?: { table: string; order: string }
  /**
   * Columns the service derives from others: worked out again on import, whatever the file says, so that a file
   * edited by hand cannot load a row the service would never have written (two category names equal but for case).
   * By the rules of the file's schema: the database migrates rows of an earlier one after the load. A column the
   * service now writes in one form only is brought to it (a logged body with NUL, which PostgreSQL cannot hold).
   */
  derived?: Readonly<Record<string, (row: Row, fileSchema: string) => unknown>>
}

const text = 'text'
const integer = 'integer'

export const TABLES: readonly TableEntry[] = [
  // The cursor signing key and the key kept in the database that opens webhook secrets, before anything sealed.
  { name: 'service_secrets', columns: { name: text, value: text }, key: ['name'], replaced: true },
  // A category's id is chosen by the service above every id handed out before (the counter row), not by the store;
  // its first version goes above the counter row's floor, the versions deleted categories reached.
  {
    name: 'categories',
    columns: { id: integer, name: text, name_key: text, version: integer },
    key: ['id'],
    derived: {
      name_key: (row, fileSchema) =>
        typeof row.name === 'string' ? nameKeyOfSchema(row.name, fileSchema, row.name_key) : row.name_key,
    },
  },
  {
    name: 'category_id_counter',
    columns: { last_id: integer, version_floor: integer },
    key: [],
    replaced: true,
  },
  {
    name: 'pets',
    columns: { id: integer, name: text, category_id: integer, status: text, version: integer, deleted_at: text },
    key: ['id'],
    counter: 'id',
  },
  {
    name: 'orders',
    columns: { id: integer, pet_id: integer, quantity: integer, ship_date: text, status: text },
    key: ['id'],
    counter: 'id',
  },
  {
    name: 'api_keys',
    columns: {
      id: integer,
      name: text,
      key_hash: text,
      key_prefix: text,
      created_at: text,
      last_used_at: text,
      revoked_at: text,
      scopes: text,
      expires_at: text,
    },
    key: ['id'],
    counter: 'id',
  },
  {
    name: 'idempotency_keys',
    columns: {
      api_key_id: text,
      idempotency_key: text,
      request_fingerprint: text,
      state: text,
      lease_token: text,
      leased_until: text,
      response_status: integer,
      response_body: text,
      response_headers: text,
      created_at: text,
      expires_at: text,
    },
    key: ['api_key_id', 'idempotency_key'],
    expiresAt: 'expires_at',
  },
  {
    name: 'events',
    columns: { id: integer, type: text, occurred_at: text, data: text },
    key: ['id'],
    waiting: { table: 'event_inbox', order: NUMBERING_ORDER },
  },
  { name: 'event_retention', columns: { purged_through: integer }, key: [], replaced: true },
  {
    name: 'webhook_endpoints',
    columns: {
      id: integer,
      url: text,
      types: text,
      description: text,
      status: text,
      secret: text,
      previous_secret: text,
      previous_secret_expires_at: text,
      created_at: text,
      updated_at: text,
      receives_after: integer,
    },
    key: ['id'],
    counter: 'id',
  },
  { name: 'webhook_fan_out', columns: { position: integer }, key: [], replaced: true },
  {
    name: 'webhook_deliveries',
    columns: {
      id: integer,
      endpoint_id: integer,
      event_id: integer,
      status: text,
      attempts: integer,
      due_at: integer,
      lease_token: text,
      created_at: text,
      finished_at: text,
    },
    key: ['id'],
    counter: 'id',
  },
  {
    name: 'webhook_attempts',
    columns: {
      delivery_id: integer,
      attempt: integer,
      started_at: text,
      duration_ms: integer,
      outcome: text,
      response_status: integer,
      error: text,
      response_body: text,
    },
    key: ['delivery_id', 'attempt'],
    // Versions before NUL became U+FFFD in the log stored it as received on SQLite.
    derived: {
      response_body: (row) =>
        typeof row.response_body === 'string' ? withoutNul(row.response_body) : (row.response_body ?? null),
    },
  },
]

export function findTable(name: string): TableEntry | undefined {
  return TABLES.find((table) => table.name === name)
}
