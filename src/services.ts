// Composition of the services: each gets its store access ({read, transaction}) and the caches and fast
// paths chosen here, once, for the store at hand. Routes see only the services' interfaces.
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from './config.js'
import { DEFAULT_TUNING, type Tuning } from './config/tuning.js'
import type { DataAccess } from './db/database.js'
import { loadOrCreateSecret } from './db/secret.repository.js'
import type { Store } from './db/store.js'
import { notifyingCommits } from './events/event-log.js'
import { EventNumbering } from './events/event-numbering.js'
import { startEventPurge } from './events/event-purge.js'
import { createEventService, type EventService } from './events/event.service.js'
import { createCursorCodec, type CursorCodec } from './http/cursor.js'
import { createIdempotency, type Idempotency } from './idempotency/idempotent.js'
import { startPurgeTimer } from './idempotency/purge.js'
import type { Authenticator } from './http/auth/authenticator.js'
import { createAuthenticator } from './keys/authenticator.js'
import { createOrderService, type OrderService } from './orders/order.service.js'
import { ordersForPets } from './orders/orders-for-pets.js'
import { createCategoryService, type CategoryService } from './categories/category.service.js'
import type { PetStatus } from './pets/pet.repository.js'
import { queryBuilderPetReads, type PetReads } from './pets/pet-reads.js'
import { cachedPetReads, cachedPetReadsWithVersion } from './pets/pet-reads.cached.js'
import { postgresPetReads } from './pets/pet-reads.postgres.js'
import { sqlitePetReads } from './pets/pet-reads.sqlite.js'
import { createPetService, type PetService } from './pets/pet.service.js'
import { petsForOrders } from './pets/pets-for-orders.js'
import type { DeliveryStatus } from './db/database.js'
import type { StoredBodyCodec } from './idempotency/idempotent.js'
import { DeliveryWorker } from './webhooks/delivery/delivery-worker.js'
import type { RequestsInFlight } from './http/request/requests-in-flight.js'
import { startDeliveryPurge } from './webhooks/delivery/delivery-purge.js'
import { webhookEventsNeededAfter } from './webhooks/delivery/needed-events.repository.js'
import type { WebhookNetwork } from './webhooks/delivery/outbound-http.js'
import { inProcessSender, threadSender } from './webhooks/delivery/sender.js'
import { webhookKeyRing } from './webhooks/secret-keys.js'
import { refuseUnopenableSecrets } from './webhooks/secret-key-check.js'
import { createDeliveryMetrics } from './webhooks/delivery/webhook-metrics.js'
import { createWebhookService, type WebhookService } from './webhooks/endpoints/webhook.service.js'
import type { Metric } from 'prom-client'

export interface Services {
  pets: PetService
  orders: OrderService
  categories: CategoryService
  events: EventService
  webhooks: WebhookService
  /** The delivery worker's metrics, for the app's registry. */
  webhookMetrics: readonly Metric[]
  /** Stored responses that show a webhook secret are kept encrypted with this. */
  storedWebhookSecrets: StoredBodyCodec
  authenticator: Authenticator
  idempotency: Idempotency
  /** Each collection's own cursors: a cursor of one is never accepted by another. */
  cursors: {
    pets: CursorCodec<PetStatus>
    orders: CursorCodec
    categories: CursorCodec
    webhooks: CursorCodec
    /** One webhook's delivery log: its cursors are not accepted for another webhook's. */
    deliveries: (webhookId: number) => CursorCodec<DeliveryStatus>
  }
  /**
   * Stops background work (the purges, webhook deliveries: attempts in progress finish or are given back),
   * waiting for a run in progress, and ends event streams and long polls.
   */
  stop(): Promise<void>
}

/**
 * SQLite reads pets as JSON it makes itself, PostgreSQL gets by id in one query per turn; both keep what they
 * read while the store's data version holds (PostgreSQL's is the data_version table, read once per turn for
 * cached answers, and with each query, in the same round trip, for the others).
 */
function petReadsFor(store: Store): PetReads {
  if (store.readWithVersion && store.readVersion)
    return cachedPetReadsWithVersion(postgresPetReads(store.read, store.readWithVersion), store.readVersion)
  const reads = store.sqliteReader ? sqlitePetReads(store.sqliteReader) : queryBuilderPetReads(store.read)
  return store.readVersion ? cachedPetReads(reads, store.readVersion) : reads
}

export interface ServiceOptions {
  /** Where webhooks go: the system's resolver and connections unless a test gives its own. */
  webhookNetwork?: WebhookNetwork
  /** The HTTP server's requests in progress: the deliverer gives way while there are many. None: never. */
  requestsInFlight?: RequestsInFlight
  /** Leases, waits, polls and attempts at once: the fixed defaults unless a test gives its own. */
  tuning?: Tuning
}

export async function createServices(
  config: Config,
  store: Store,
  log: FastifyBaseLogger,
  options: ServiceOptions = {},
): Promise<Services> {
  const tuning = options.tuning ?? DEFAULT_TUNING
  const events = createEventService({
    data: store,
    // Polls skip while this holds; where events are readable only once numbered, there is none (db/store.ts).
    readVersion: store.eventsReadVersion,
    openReadsPerKey: config.eventStreamsPerKey,
    maxWaitMs: tuning.eventWaitMaxSeconds * 1000,
    pollIntervalMs: tuning.eventPollIntervalMs,
    onError: (error) => log.warn({ err: error }, 'could not read new events for waiting readers'),
  })
  const keyRing = webhookKeyRing(store, config.webhookSecretKey, (message) => log.warn(message))
  // Endpoints exist: the key is needed anyway, and the operator learns now, not at the first delivery, if it does
  // not open their secrets (then the service does not start, saying only that), or else if it is kept in the
  // database.
  const endpointsExist = await refuseUnopenableSecrets(
    store.read,
    async () => (await keyRing.boxesUnannounced()).signingSecrets,
    config.webhookSecretKey !== undefined,
  )
  if (endpointsExist) await keyRing.boxes()
  const deliveryMetrics = createDeliveryMetrics(() => deliveries)
  const outbound = {
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    timeoutMs: tuning.webhookAttemptTimeoutMs,
    sockets: tuning.webhookConcurrency,
    idleSocketsPerHost: tuning.webhookConcurrencyPerEndpoint,
  }
  // The worker writes no events: it works on the store itself.
  const deliveries = new DeliveryWorker({
    data: store.bookkeeping,
    sender: options.webhookNetwork
      ? inProcessSender({ ...outbound, network: options.webhookNetwork })
      : threadSender(outbound),
    secrets: async () => (await keyRing.boxes()).signingSecrets,
    retryScheduleMs: config.webhookRetryScheduleMs,
    leaseMs: tuning.webhookLeaseMs,
    attemptTimeoutMs: tuning.webhookAttemptTimeoutMs,
    pollIntervalMs: tuning.webhookPollIntervalMs,
    batchIntervalMs: tuning.webhookBatchIntervalMs,
    busyIntervalMs: tuning.webhookBusyIntervalMs,
    concurrency: tuning.webhookConcurrency,
    concurrencyPerEndpoint: tuning.webhookConcurrencyPerEndpoint,
    // Event streams and waiting long polls are requests in progress that cost nothing while they wait: they do
    // not make the API busy (with many readers following the feed, webhooks would otherwise never run at speed).
    apiBusy: () => {
      if (tuning.webhookBusyRequests === 0 || !options.requestsInFlight) return false
      const { openStreams, waitingLongPolls } = events.stats()
      return options.requestsInFlight.count() - openStreams - waitingLongPolls >= tuning.webhookBusyRequests
    },
    shutdownWaitMs: tuning.webhookShutdownWaitMs,
    observer: deliveryMetrics,
    onError: (error, what) => log.warn({ err: error }, what),
  })
  // New events are readable: this instance's waiting readers and its deliverer (which fans them out) look.
  const readable = () => {
    events.readable()
    deliveries.committed()
  }
  // On PostgreSQL events are readable once numbered (event-numbering.ts); on SQLite once committed.
  const numbering = store.sequencing
    ? new EventNumbering({
        data: store.sequencing,
        maintenance: store.admin,
        listen: store.listen,
        onNumbered: readable,
        sweepIntervalMs: tuning.eventSweepIntervalMs,
        onError: (error, what) => log.warn({ err: error }, what),
      })
    : undefined
  // Services see the store only as DataAccess: reads, and writes in durable transactions. A transaction that
  // wrote events has them numbered or, on SQLite, wakes the readers, once it has committed.
  const data: DataAccess = notifyingCommits(store, (types) => {
    events.committed(types)
    if (numbering) numbering.committed()
    else readable()
  })
  // Shared by every instance on the database, so a cursor issued by one is accepted by the others.
  const cursorSecret = await loadOrCreateSecret(data, 'cursor-hmac')
  const purge = startPurgeTimer(data, (error) => log.warn({ err: error }, 'could not purge expired idempotency keys'))
  const eventPurge = startEventPurge(
    { data, retentionDays: config.eventRetentionDays, neededAfter: webhookEventsNeededAfter },
    (error) => log.warn({ err: error }, 'could not purge old events'),
  )
  const deliveryPurge = startDeliveryPurge(data, config.webhookDeliveryRetentionDays, (error) =>
    log.warn({ err: error }, 'could not purge old webhook deliveries'),
  )
  deliveries.start()
  numbering?.start()
  return {
    // The two features meet only here: each gets the other's side through the port it defines.
    pets: createPetService({ reads: petReadsFor(store), orders: ordersForPets }),
    orders: createOrderService(data, petsForOrders),
    categories: createCategoryService(data),
    events,
    webhooks: createWebhookService({
      data,
      secrets: async () => (await keyRing.boxes()).signingSecrets,
      allowPrivateNetworks: config.webhookAllowPrivateNetworks,
      secretOverlapMs: tuning.webhookSecretOverlapSeconds * 1000,
      deliveryScheduled: () => deliveries.endpointsChanged(),
    }),
    webhookMetrics: deliveryMetrics.metrics,
    storedWebhookSecrets: {
      seal: async (body) => (await keyRing.boxes()).storedResponses.seal(body),
      open: async (stored) => (await keyRing.boxes()).storedResponses.open(stored),
    },
    authenticator: createAuthenticator({
      data,
      readVersion: store.readVersion,
      staticKeys: config.staticApiKeys,
      onError: (error) => log.warn({ err: error }, 'could not record key use'),
    }),
    idempotency: createIdempotency({
      data,
      ttlMs: config.idempotencyKeyTtlHours * 3_600_000,
      leaseMs: tuning.idempotencyLeaseSeconds * 1000,
    }),
    cursors: {
      pets: createCursorCodec<PetStatus>(cursorSecret, 'pets'),
      orders: createCursorCodec(cursorSecret, 'orders'),
      categories: createCursorCodec(cursorSecret, 'categories'),
      webhooks: createCursorCodec(cursorSecret, 'webhooks'),
      deliveries: (webhookId) => createCursorCodec<DeliveryStatus>(cursorSecret, `deliveries of webhook ${webhookId}`),
    },
    async stop() {
      events.stop()
      await Promise.all([purge.stop(), eventPurge.stop(), deliveryPurge.stop(), deliveries.stop(), numbering?.stop()])
    },
  }
}
