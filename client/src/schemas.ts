// Named types for every schema of the API: each is the document's named schema (components.schemas), so that
// an editor shows `Pet`, not an anonymous shape, and a renamed or removed schema is a compile error here.
import type { components, operations } from './generated/petstore-v1.js'

type Schemas = components['schemas']
type QueryOf<Operation extends keyof operations> = NonNullable<operations[Operation]['parameters']['query']>

/** An animal as the service stores it. */
export type Pet = Schemas['Pet']
/** An animal to add (createPet). */
export type NewPet = Schemas['NewPet']
/** The properties of an animal to change (updatePet, JSON Merge Patch). */
export type PetPatch = Schemas['PetPatch']
export type PetStatus = Schemas['PetStatus']

/** [beta] A named group of animals: the `categoryId` they carry. */
export type Category = Schemas['Category']
/** A category to add (createCategory), or the name to give one (putCategory). */
export type NewCategory = Schemas['NewCategory']

/** An order for one animal. */
export type Order = Schemas['Order']
/** An order to place (placeOrder). */
export type NewOrder = Schemas['NewOrder']
export type OrderStatus = Schemas['OrderStatus']

/** One change, as the feed, the stream and webhook deliveries carry it. */
export type Event = Schemas['Event']
export type EventType = Schemas['EventType']

/** A webhook endpoint as listed and read (without its secret). */
export type Webhook = Schemas['Webhook']
/** A webhook endpoint as created or after a rotation: with its signing secret, shown only then. */
export type WebhookWithSecret = Schemas['WebhookWithSecret']
/** An endpoint to register (createWebhook). */
export type NewWebhook = Schemas['NewWebhook']
/**
 * The properties of an endpoint to change (updateWebhook, JSON Merge Patch: `null` removes `types` or `description`).
 */
export type WebhookPatch = Schemas['WebhookPatch']
export type WebhookStatus = Schemas['WebhookStatus']
/** One event's delivery to one endpoint, with its attempts. */
export type WebhookDelivery = Schemas['WebhookDelivery']
/** One attempt of a delivery: its outcome, the receiver's status and the start of its answer. */
export type DeliveryAttempt = Schemas['DeliveryAttempt']
export type DeliveryStatus = Schemas['DeliveryStatus']
export type AttemptOutcome = Schemas['AttemptOutcome']

/** The body of every error response. */
export type PetstoreErrorBody = Schemas['Error']
/** Every error code the service answers with. */
export type ErrorCode = PetstoreErrorBody['code']
/** One problem of an invalid request: where (`body/name`) and what. */
export type ErrorDetail = Schemas['ErrorDetail']

export type ListPetsQuery = QueryOf<'listPets'>
export type ListCategoriesQuery = QueryOf<'listCategories'>
export type ListOrdersQuery = QueryOf<'listOrders'>
export type ListEventsQuery = QueryOf<'listEvents'>
export type ListWebhooksQuery = QueryOf<'listWebhooks'>
export type ListWebhookDeliveriesQuery = QueryOf<'listWebhookDeliveries'>
