// Composition of the services: each gets its store access ({read, transaction}) and the caches and fast
// paths chosen here, once, for the store at hand. Routes see only the services' interfaces.
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from './config.js'
import type { DataAccess } from './db/database.js'
import { loadOrCreateSecret } from './db/secret.repository.js'
import type { Store } from './db/store.js'
import { createCursorCodec, type CursorCodec } from './http/cursor.js'
import { createIdempotency, type Idempotency } from './idempotency/idempotent.js'
import { startPurgeTimer } from './idempotency/purge.js'
import { createAuthenticator, type Authenticator } from './keys/authenticator.js'
import { createOrderService, type OrderService } from './orders/order.service.js'
import type { PetStatus } from './pets/pet.repository.js'
import { queryBuilderPetReads, type PetReads } from './pets/pet-reads.js'
import { cachedPetReads } from './pets/pet-reads.cached.js'
import { postgresPetReads } from './pets/pet-reads.postgres.js'
import { sqlitePetReads } from './pets/pet-reads.sqlite.js'
import { createPetService, type PetService } from './pets/pet.service.js'

export interface Services {
  pets: PetService
  orders: OrderService
  authenticator: Authenticator
  idempotency: Idempotency
  /** Each collection's own cursors: a cursor of one is never accepted by another. */
  cursors: { pets: CursorCodec<PetStatus>; orders: CursorCodec }
  /** Stops background work (the idempotency purge), waiting for a run in progress. */
  stop(): Promise<void>
}

/**
 * SQLite reads pets as JSON it makes itself, PostgreSQL gets by id in one query per turn; both keep what they
 * read while the store's data version holds (PostgreSQL's is the data_version table, read once per turn).
 */
function petReadsFor(store: Store): PetReads {
  const reads = store.sqliteReader
    ? sqlitePetReads(store.sqliteReader)
    : store.dialect === 'postgres'
      ? postgresPetReads(store.read)
      : queryBuilderPetReads(store.read)
  return store.readVersion ? cachedPetReads(reads, store.readVersion) : reads
}

export async function createServices(config: Config, store: Store, log: FastifyBaseLogger): Promise<Services> {
  // Services see the store only as DataAccess: reads, and writes in durable transactions.
  const data: DataAccess = store
  // Shared by every instance on the database, so a cursor issued by one is accepted by the others.
  const cursorSecret = await loadOrCreateSecret(data, 'cursor-hmac')
  const purge = startPurgeTimer(data, (error) => log.warn({ err: error }, 'could not purge expired idempotency keys'))
  return {
    pets: createPetService({ data, reads: petReadsFor(store) }),
    orders: createOrderService(data),
    authenticator: createAuthenticator({
      data,
      readVersion: store.readVersion,
      staticKeys: config.staticApiKeys,
      onError: (error) => log.warn({ err: error }, 'could not record key use'),
    }),
    idempotency: createIdempotency({
      data,
      ttlMs: config.idempotencyKeyTtlHours * 3_600_000,
      leaseMs: config.idempotencyLeaseSeconds * 1000,
    }),
    cursors: {
      pets: createCursorCodec<PetStatus>(cursorSecret, 'pets'),
      orders: createCursorCodec(cursorSecret, 'orders'),
    },
    stop: () => purge.stop(),
  }
}
