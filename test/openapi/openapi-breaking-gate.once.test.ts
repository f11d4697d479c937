// The breaking-change gate fails on every kind of break in the table below. Each break is made in a copy of the
// committed document and judged against the documents clients hold: the 1.0.0 baseline and the last release's
// snapshot. The gate's other rules, and a break made in the code itself: openapi-breaking-gate-rules.once.test.ts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EVENT_DATA, judged, ORDER_200, schemas, type Json } from '../helpers/openapi-gate.js'

/** Each break: what it does, and a change the gate must report for it against the baseline and the release. */
const BREAKS: { name: string; edit: (document: Json) => void; baseline?: string; release: string }[] = [
  {
    name: 'a response boolean becomes a string (Order.complete)',
    edit: (document) => (schemas(document).Order.properties.complete.type = 'string'),
    baseline: `replace ${ORDER_200}/properties/complete/type`,
    release: `replace ${ORDER_200}/properties/complete/type`,
  },
  {
    name: 'a response integer becomes a string (Order.quantity)',
    edit: (document) => (schemas(document).Order.properties.quantity.type = 'string'),
    baseline: `replace ${ORDER_200}/properties/quantity/type`,
    release: `replace ${ORDER_200}/properties/quantity/type`,
  },
  {
    name: 'a response string becomes an integer (Order.status)',
    edit: (document) => (schemas(document).OrderStatus.type = 'integer'),
    baseline: `replace ${ORDER_200}/properties/status/type`,
    release: `replace ${ORDER_200}/properties/status/type`,
  },
  {
    name: 'the error body changes (Error.code becomes an integer)',
    edit: (document) => (schemas(document).Error.properties.code.type = 'integer'),
    baseline: 'replace paths//pets/get/responses/401/content/application/json/schema/properties/code/type',
    release: 'replace paths//pets/get/responses/401/content/application/json/schema/properties/code/type',
  },
  {
    name: 'a request field becomes required (NewPet.status)',
    edit: (document) => schemas(document).NewPet.required.push('status'),
    baseline: 'add paths//pets/post/requestBody/content/application/json/schema/required',
    release: 'add paths//pets/post/requestBody/content/application/json/schema/required',
  },
  {
    name: 'an operation is removed (DELETE /webhooks/{webhookId})',
    edit: (document) => delete document.paths['/webhooks/{webhookId}'].delete,
    release: 'remove paths//webhooks/{webhookId}/delete',
  },
  {
    name: 'a stable operation is removed (GET /pets)',
    edit: (document) => delete document.paths['/pets'].get,
    baseline: 'remove paths//pets/get',
    release: 'remove paths//pets/get',
  },
  {
    name: 'a response property is removed (WebhookWithSecret.secret)',
    edit: (document) => {
      const schema = schemas(document).WebhookWithSecret
      delete schema.properties.secret
      schema.required = schema.required.filter((name: string) => name !== 'secret')
    },
    release: 'remove components/schemas/WebhookWithSecret/properties/secret',
  },
  {
    name: 'a component schema is removed (PetPatch)',
    edit: (document) => delete schemas(document).PetPatch,
    release: 'remove components/schemas/PetPatch',
  },
  {
    name: 'a response enum gains a value (OrderStatus)',
    edit: (document) => schemas(document).OrderStatus.enum.push('shipped'),
    baseline: `add ${ORDER_200}/properties/status/enum`,
    release: `add ${ORDER_200}/properties/status/enum`,
  },
  {
    // Event types are open by a recorded decision; a new value inside an event's data is not.
    name: "an event's data gains an enum value (the pet's status in PetEventData only)",
    edit: (document) => {
      const { Pet, PetStatus, PetEventData } = schemas(document)
      const status = { type: 'string', enum: [...PetStatus.enum, 'reserved'] }
      PetEventData.properties.pet = {
        ...structuredClone(Pet),
        properties: { ...structuredClone(Pet.properties), status },
      }
    },
    baseline: `add ${EVENT_DATA}/anyOf/0/properties/pet/properties/status/enum`,
    release: `add ${EVENT_DATA}/anyOf/0/properties/pet/properties/status/enum`,
  },
  {
    name: 'a request field that took any value gains an enum (NewPet.name)',
    edit: (document) => (schemas(document).NewPet.properties.name.enum = ['Rex']),
    baseline: 'add paths//pets/post/requestBody/content/application/json/schema/properties/name/enum',
    release: 'add paths//pets/post/requestBody/content/application/json/schema/properties/name/enum',
  },
  {
    // The name rule is stated as x-unicode-pattern (it needs Unicode property classes); the service enforces it.
    name: 'a request name rule is tightened (NewPet.name x-unicode-pattern)',
    edit: (document) => (schemas(document).NewPet.properties.name['x-unicode-pattern'] = '^[A-Za-z]+$'),
    baseline: 'replace paths//pets/post/requestBody/content/application/json/schema/properties/name/x-unicode-pattern',
    release: 'replace paths//pets/post/requestBody/content/application/json/schema/properties/name/x-unicode-pattern',
  },
  {
    name: 'a response name rule is dropped (Pet.name x-unicode-pattern)',
    edit: (document) => delete schemas(document).Pet.properties.name['x-unicode-pattern'],
    release:
      'remove paths//pets/{petId}/get/responses/200/content/application/json/schema/properties/name/x-unicode-pattern',
  },
  {
    name: 'a request enum loses a value (PetStatus in NewPet)',
    edit: (document) => (schemas(document).PetStatus.enum = ['available', 'pending']),
    baseline: 'remove paths//pets/post/requestBody/content/application/json/schema/properties/status/enum',
    release: 'remove paths//pets/post/requestBody/content/application/json/schema/properties/status/enum',
  },
  {
    name: 'a response property is no longer always sent (Pet.name)',
    edit: (document) => (schemas(document).Pet.required = ['id', 'categoryId', 'status']),
    baseline: 'remove paths//pets/{petId}/get/responses/200/content/application/json/schema/required',
    release: 'remove paths//pets/{petId}/get/responses/200/content/application/json/schema/required',
  },
  {
    name: 'a request media type is no longer accepted (merge-patch on updatePet)',
    edit: (document) =>
      delete document.paths['/pets/{petId}'].patch.requestBody.content['application/merge-patch+json'],
    release: 'remove paths//pets/{petId}/patch/requestBody/content/application/merge-patch+json',
  },
  {
    name: 'an operation needs another scope (listPets: pets:write instead of pets:read)',
    edit: (document) => {
      const listPets = document.paths['/pets'].get
      listPets['x-required-scope'] = 'pets:write'
      listPets.responses['403'] = { $ref: '#/components/responses/ForbiddenPetsWrite' }
    },
    baseline: 'replace paths//pets/get/x-required-scope',
    release: 'replace paths//pets/get/x-required-scope',
  },
  {
    name: 'a request body gains an allOf branch that requires a field (NewPet)',
    edit: (document) =>
      (schemas(document).NewPet.allOf = [{ required: ['nickname'], properties: { nickname: { type: 'string' } } }]),
    baseline: 'add paths//pets/post/requestBody/content/application/json/schema/allOf/0/required',
    release: 'add paths//pets/post/requestBody/content/application/json/schema/allOf/0/required',
  },
  {
    // Generators name an operation's function and types by its operationId (operations["listPets"] in ours).
    name: 'an operation is renamed (operationId listPets becomes findPets)',
    edit: (document) => (document.paths['/pets'].get.operationId = 'findPets'),
    baseline: 'replace paths//pets/get/operationId',
    release: 'replace paths//pets/get/operationId',
  },
  {
    // The baseline's false report at this place is accepted against the baseline only (`against`).
    name: "an event's data renames its resource (pet becomes animal)",
    edit: (document) =>
      (schemas(document).Event.properties.data.anyOf[0] = {
        type: 'object',
        required: ['animal'],
        properties: { animal: { $ref: '#/components/schemas/Pet' } },
      }),
    release: `remove ${EVENT_DATA}/anyOf/0/properties/pet`,
  },
  {
    name: 'a webhook delivery header is no longer sent (webhook-signature)',
    edit: (document) => {
      const delivery = document.webhooks.event.post
      delivery.parameters = delivery.parameters.filter((parameter: Json) => parameter.name !== 'webhook-signature')
    },
    release: 'remove webhooks/event/post/parameters/2',
  },
  {
    name: 'the webhook delivery is removed',
    edit: (document) => delete document.webhooks.event,
    release: 'remove webhooks/event/post',
  },
  {
    name: 'a beta operation is removed (GET /categories/{categoryId})',
    edit: (document) => delete document.paths['/categories/{categoryId}'].get,
    release: 'remove paths//categories/{categoryId}/get',
  },
  {
    name: 'the value taken for an omitted request field changes (NewPet.status x-default)',
    edit: (document) => (schemas(document).NewPet.properties.status['x-default'] = 'pending'),
    release: 'replace paths//pets/post/requestBody/content/application/json/schema/properties/status/x-default',
  },
  {
    name: 'a query parameter becomes required (listPets limit)',
    edit: (document) => {
      const limit = document.paths['/pets'].get.parameters.find((parameter: Json) => parameter.name === 'limit')
      limit.required = true
    },
    release: 'add paths//pets/get/parameters/0/required',
  },
]

describe('the breaking-change gate', () => {
  it('passes the committed document against the baseline and the last release', () => {
    assert.deepEqual(
      judged(() => undefined),
      { baseline: [], release: [] },
    )
  })

  for (const { name, edit, baseline, release } of BREAKS) {
    it(`fails when ${name}`, () => {
      const changes = judged(edit)
      assert.ok(changes.release.includes(release), `release: ${JSON.stringify(changes.release.slice(0, 5))}`)
      if (baseline !== undefined)
        assert.ok(changes.baseline.includes(baseline), `baseline: ${JSON.stringify(changes.baseline.slice(0, 5))}`)
    })
  }
})
