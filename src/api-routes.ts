// The API under /v1: the guard (authentication, rate limit, scopes) before everything, then each feature's
// routes with the services and settings it takes. Like services.ts for the services, the one place that
// names every feature's routes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { categoryRoutes } from './categories/category.routes.js'
import type { Config } from './config.js'
import type { Tuning } from './config/tuning.js'
import { EventsSchema } from './event-document.js'
import { eventRoutes } from './events/event.routes.js'
import { guardApi, type ApiGuard } from './http/auth/auth.js'
import { refuseEmptyPathParameters } from './http/errors/no-route.js'
import { refuseBodiesOfReads } from './http/json/refuse-body.js'
import type { Metrics } from './http/metrics/metrics.js'
import { orderRoutes } from './orders/order.routes.js'
import { petMaintenanceRoutes } from './pets/pet-maintenance.routes.js'
import { petRoutes } from './pets/pet.routes.js'
import type { Services } from './services.js'
import { webhookDeliveryRoutes } from './webhooks/endpoints/webhook-delivery.routes.js'
import { webhookRoutes } from './webhooks/endpoints/webhook.routes.js'

export interface ApiRoutesOptions {
  config: Config
  tuning: Tuning
  services: Services
  guard: ApiGuard
  metrics: Metrics
}

export const apiRoutes: FastifyPluginAsyncTypebox<ApiRoutesOptions> = async (
  api,
  { config, tuning, services, guard, metrics },
) => {
  guardApi(api, guard)
  refuseEmptyPathParameters(api)
  refuseBodiesOfReads(api)
  const { publicBaseUrl } = config
  const { webhooks, idempotency, cursors } = services
  await api.register(petRoutes, { pets: services.pets, cursors: cursors.pets, metrics, idempotency, publicBaseUrl })
  await api.register(petMaintenanceRoutes, { pets: services.pets, metrics, idempotency })
  await api.register(orderRoutes, { orders: services.orders, cursors: cursors.orders, idempotency, publicBaseUrl })
  await api.register(categoryRoutes, {
    categories: services.categories,
    cursors: cursors.categories,
    idempotency,
    publicBaseUrl,
  })
  await api.register(eventRoutes, {
    events: services.events,
    eventsSchema: EventsSchema,
    heartbeatMs: tuning.eventHeartbeatSeconds * 1000,
    keyRecheckMs: tuning.eventStreamKeyRecheckMs,
    publicBaseUrl,
  })
  await api.register(webhookRoutes, {
    webhooks,
    cursors: cursors.webhooks,
    idempotency,
    storedSecrets: services.storedWebhookSecrets,
    publicBaseUrl,
    secretOverlapSeconds: tuning.webhookSecretOverlapSeconds,
  })
  await api.register(webhookDeliveryRoutes, {
    webhooks,
    cursors: cursors.deliveries,
    idempotency,
    publicBaseUrl,
    retryScheduleMs: config.webhookRetryScheduleMs,
  })
}
