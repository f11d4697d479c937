// @petstore/client: a typed client for the Petstore API v1.
export { createPetstoreClient, type PetstoreClient, type PetstoreClientOptions } from './client.js'
export type { CallOptions, Page, WriteOptions } from './context.js'
export { DEPRECATION_WARNING_CODE } from './deprecation.js'
export { PetstoreTimeoutError } from './attempt-signal.js'
export { PetstoreError } from './errors.js'
export type { EventPage, EventQuery, EventsApi, FollowOptions, ListEventsOptions, StreamOptions } from './events.js'
export type { CategoriesApi, CategoryWithETag, PutCategoryOptions } from './categories.js'
export type { OrdersApi } from './orders.js'
export type { ConditionalWriteOptions, PetsApi, PetWithETag } from './pets.js'
export { DEFAULT_RETRY, type RetryOptions } from './retry.js'
export type {
  AttemptOutcome,
  Category,
  DeliveryAttempt,
  DeliveryStatus,
  ErrorCode,
  ErrorDetail,
  Event,
  EventType,
  ListCategoriesQuery,
  ListEventsQuery,
  ListOrdersQuery,
  ListPetsQuery,
  ListWebhookDeliveriesQuery,
  ListWebhooksQuery,
  NewCategory,
  NewOrder,
  NewPet,
  NewWebhook,
  Order,
  OrderStatus,
  Pet,
  PetPatch,
  PetStatus,
  PetstoreErrorBody,
  Webhook,
  WebhookDelivery,
  WebhookPatch,
  WebhookStatus,
  WebhookWithSecret,
} from './schemas.js'
export type { FetchFunction } from './transport.js'
export type { WebhooksApi } from './webhooks.js'
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './verify-webhook.js'
export type { components, operations, paths } from './generated/petstore-v1.js'
