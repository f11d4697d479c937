// Compiled by test/client/client-types.once.test.ts (and by the client's typecheck): what the types accept and
// refuse.
// Each `@ts-expect-error` must meet an error, or the compiler reports the directive as unused.
import {
  createPetstoreClient,
  PetstoreError,
  type AttemptOutcome,
  type components,
  type DeliveryAttempt,
  type ErrorCode,
  type Event,
  type NewOrder,
  type NewPet,
  type NewWebhook,
  type Order,
  type Pet,
  type PetPatch,
  type PetStatus,
  type PetstoreErrorBody,
  type Webhook,
  type WebhookDelivery,
  type WebhookPatch,
  type WebhookStatus,
  type WebhookWithSecret,
} from '../src/index.js'

// The exported names are the document's named schemas (components.schemas), not shapes read from an operation.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Named = components['schemas']
export const named: [
  Same<Pet, Named['Pet']>,
  Same<NewPet, Named['NewPet']>,
  Same<PetPatch, Named['PetPatch']>,
  Same<Order, Named['Order']>,
  Same<NewOrder, Named['NewOrder']>,
  Same<Event, Named['Event']>,
  Same<PetstoreErrorBody, Named['Error']>,
  Same<Webhook, Named['Webhook']>,
  Same<WebhookWithSecret, Named['WebhookWithSecret']>,
  Same<NewWebhook, Named['NewWebhook']>,
  Same<WebhookPatch, Named['WebhookPatch']>,
  Same<WebhookDelivery, Named['WebhookDelivery']>,
  Same<DeliveryAttempt, Named['DeliveryAttempt']>,
  Same<AttemptOutcome, Named['AttemptOutcome']>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true]

export async function usage(): Promise<void> {
  const client = createPetstoreClient({ baseUrl: 'https://petstore.example.com/v1', apiKey: 'pst_example' })

  const { pet, etag }: { pet: Pet; etag: string } = await client.pets.create({
    name: 'Rex',
    categoryId: 1,
    status: 'available',
  })
  const page = await client.pets.list({ status: 'sold', limit: 10 })
  const first: Pet | undefined = page.items[0]
  for await (const listed of client.pets.listAll({ status: 'pending' })) void listed.name
  await client.pets.update(pet.id, { status: 'sold' }, { ifMatch: etag })
  // deprecated-call: the test finds TypeScript's deprecation diagnostic on this line.
  const read = await client.pets.get(pet.id)
  const order: Order = await client.orders.place({ petId: read.pet.id, quantity: 1 })
  for await (const event of client.events.follow({ after: 0, types: ['pet.created'] })) void (event satisfies Event)
  const webhook = await client.webhooks.create({ url: 'https://hooks.example.com/petstore', types: ['pet.created'] })
  const secret: string = webhook.secret
  void first
  void order
  void secret

  // @ts-expect-error a property a new pet does not have
  await client.pets.create({ name: 'Rex', categoryId: 1, colour: 'brown' })
  // @ts-expect-error categoryId is required
  await client.pets.create({ name: 'Rex' })
  // @ts-expect-error categoryId is a number
  const wrongType: NewPet = { name: 'Rex', categoryId: '1' }
  // @ts-expect-error not a status
  const wrongStatus: PetStatus = 'lost'
  // @ts-expect-error not a status to filter by
  await client.pets.list({ status: 'lost' })
  // @ts-expect-error a pet's id is a number
  const wrongId: string = pet.id
  // @ts-expect-error not an event type
  await client.events.list({ types: ['pet.sold'] })
  // @ts-expect-error an order's quantity is a number
  await client.orders.place({ petId: 1, quantity: 'one' })
  // @ts-expect-error a webhook subscribes to event types only
  await client.webhooks.create({ url: 'https://hooks.example.com/petstore', types: ['pet.sold'] })
  const stored: Webhook = await client.webhooks.get(webhook.id)
  // @ts-expect-error a webhook as read carries no secret
  const leaked: string = stored.secret
  // @ts-expect-error not a webhook status
  const paused: WebhookStatus = 'paused'
  // @ts-expect-error a delivery's status is one of pending, succeeded, failed
  const sent: WebhookDelivery['status'] = 'sent'
  // @ts-expect-error no such method
  await client.pets.replace(1, { name: 'Rex' })
  void wrongType
  void wrongId
  void wrongStatus
  void leaked
  void paused
  void sent

  try {
    await client.pets.list()
  } catch (error) {
    if (error instanceof PetstoreError) {
      const code: ErrorCode = error.code
      const retryAfter: number | undefined = error.retryAfter
      // @ts-expect-error not one of the service's codes
      if (error.code === 'no_such_code') void retryAfter
      void code
    }
  }
}
