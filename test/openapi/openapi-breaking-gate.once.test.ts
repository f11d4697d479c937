// The breaking-change gate fails on every kind of break and passes additive changes. Each break is made in a copy
// of the committed document (and one in the code itself) and judged against the documents clients hold: the
// 1.0.0 baseline and the last release's snapshot.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import {
  BASELINE,
  CURRENT,
  breakingChanges,
  byVersion,
  lastRelease,
  readAcceptances,
} from '../../scripts/openapi-breaking.js'
import { generateDocument } from '../../scripts/write-openapi.js'
import { OrderSchema } from '../../src/orders/order.schema.js'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const read = (path: string): Json => JSON.parse(readFileSync(path, 'utf8')) as Json
const current = read(CURRENT)
const references = { baseline: read(BASELINE), release: read(lastRelease()) }
const accepted = readAcceptances()

/** The changes the gate reports for a copy of the committed document edited by `edit`, against both references. */
function judged(edit: (document: Json) => void): { baseline: string[]; release: string[] } {
  const document = structuredClone(current)
  edit(document)
  const list = (reference: Json) =>
    breakingChanges(reference, document, accepted).map((change) => `${change.action} ${change.path}`)
  return { baseline: list(references.baseline), release: list(references.release) }
}

const ORDER_200 = 'paths//store/orders/{orderId}/get/responses/200/content/application/json/schema'
const EVENT_DATA = 'paths//events/get/responses/200/content/application/json/schema/items/properties/data'
const schemas = (document: Json): Json => document.components.schemas
/** A copy of the committed document edited by `edit`. */
function edited(edit: (document: Json) => void): Json {
  const document = structuredClone(current)
  edit(document)
  return document
}
/** The changes the gate reports from `reference` to `document`, with the recorded decisions. */
const changesBetween = (reference: Json, document: Json): string[] =>
  breakingChanges(reference, document, accepted).map((change) => `${change.action} ${change.path}`)

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

  it('fails when a webhook delivery is removed, renamed or its payload loses a property (against this document \
as a release)', () => {
    const removed = structuredClone(current)
    delete removed.webhooks.event
    assert.deepEqual(
      breakingChanges(current, removed, accepted).map((change) => `${change.action} ${change.path}`),
      ['remove webhooks/event/post'],
    )
    const thinner = structuredClone(current)
    thinner.webhooks.event.post.requestBody.content['application/json'].schema = {
      ...schemas(current).Event,
      properties: Object.fromEntries(
        Object.entries(schemas(current).Event.properties).filter(([name]) => name !== 'timestamp'),
      ),
      required: ['id', 'type', 'data'],
    }
    const changes = breakingChanges(current, thinner, accepted).map((change) => `${change.action} ${change.path}`)
    const payload = 'webhooks/event/post/requestBody/content/application/json/schema'
    assert.deepEqual(changes, [`remove ${payload}/properties/timestamp`])
    const renamed = structuredClone(current)
    renamed.webhooks.event.post.operationId = 'onEvent'
    assert.deepEqual(
      breakingChanges(current, renamed, accepted).map((change) => `${change.action} ${change.path}`),
      ['replace webhooks/event/post/operationId'],
    )
  })

  it('fails when a delivery header is removed, no longer always sent or retyped (against this document as a \
release)', () => {
    const changesOf = (edit: (parameters: Json[]) => void) => {
      const document = structuredClone(current)
      edit(document.webhooks.event.post.parameters)
      return breakingChanges(current, document, accepted).map((change) => `${change.action} ${change.path}`)
    }
    const named = (parameters: Json[], name: string): Json =>
      parameters.find((parameter) => parameter.name === name) ?? {}
    assert.deepEqual(
      changesOf((parameters) => parameters.splice(2, 1)),
      ['remove webhooks/event/post/parameters/2'],
    )
    assert.deepEqual(
      changesOf((parameters) => (named(parameters, 'webhook-id').required = false)),
      ['remove webhooks/event/post/parameters/0/required'],
    )
    assert.deepEqual(
      changesOf((parameters) => (named(parameters, 'webhook-timestamp').schema = { type: 'integer' })),
      [
        'replace webhooks/event/post/parameters/1/schema/type',
        'remove webhooks/event/post/parameters/1/schema/pattern',
        'remove webhooks/event/post/parameters/1/schema/maxLength',
      ],
    )
    // A header the service starts sending breaks no receiver.
    assert.deepEqual(
      changesOf((parameters) => parameters.push({ name: 'webhook-extra', in: 'header', required: true, schema: {} })),
      [],
    )
  })

  it('fails when a format, a pattern or a bound changes the wrong way, in paths and in webhooks alike', () => {
    const changesOf = (edit: (document: Json) => void) => {
      const document = structuredClone(current)
      edit(document)
      return breakingChanges(current, document, accepted).map((change) => `${change.action} ${change.path}`)
    }
    const deliveryId = (document: Json): Json =>
      document.webhooks.event.post.parameters.find((parameter: Json) => parameter.name === 'webhook-id').schema
    const header = 'webhooks/event/post/parameters/0/schema'
    assert.deepEqual(
      changesOf((document) => (deliveryId(document).pattern = '^msg_[0-9]+$')),
      [`replace ${header}/pattern`],
    )
    assert.deepEqual(
      changesOf((document) => (deliveryId(document).maxLength = 30)),
      [`replace ${header}/maxLength`],
    )
    assert.deepEqual(
      changesOf((document) => delete deliveryId(document).pattern),
      [`remove ${header}/pattern`],
    )
    // Sending less than before breaks no receiver.
    assert.deepEqual(
      changesOf((document) => (deliveryId(document).maxLength = 19)),
      [],
    )
    const shipDate = (document: Json): Json => schemas(document).Order.properties.shipDate
    const written = changesOf((document) => (shipDate(document).format = 'date'))
    assert.ok(written.includes(`replace ${ORDER_200}/properties/shipDate/format`), JSON.stringify(written))
    // A name the service reads may no longer be as long as before; one it writes may be longer than clients allow.
    const name = (document: Json): Json => schemas(document).NewPet.properties.name
    const newPet = 'paths//pets/post/requestBody/content/application/json/schema/properties/name'
    assert.ok(changesOf((document) => (name(document).maxLength = 100)).includes(`replace ${newPet}/maxLength`))
    assert.deepEqual(
      changesOf((document) => (name(document).maxLength = 300)),
      [],
    )
  })

  it('covers a replaced value by its decision only while the value is the one decided', () => {
    const types = 'paths//events/get/parameters/2/schema/pattern'
    const narrowed = judged((document) => {
      const parameter = document.paths['/events'].get.parameters.find((each: Json) => each.name === 'types')
      parameter.schema.pattern = '^(?:pet\\.created)$'
    })
    assert.ok(narrowed.baseline.includes(`replace ${types}`), JSON.stringify(narrowed.baseline))
    assert.ok(narrowed.release.includes(`replace ${types}`), JSON.stringify(narrowed.release))
  })

  it('fails when an operation that took no body requires one', () => {
    const document = structuredClone(current)
    document.paths['/store/orders/{orderId}/complete'].post.requestBody = {
      required: true,
      content: { 'application/json': { schema: { type: 'object' } } },
    }
    assert.deepEqual(
      judged((edited) => (edited.paths = document.paths)),
      {
        baseline: ['add paths//store/orders/{orderId}/complete/post/requestBody/required'],
        release: ['add paths//store/orders/{orderId}/complete/post/requestBody/required'],
      },
    )
  })

  it('fails when an operation of a callback is removed', () => {
    const withCallback = structuredClone(current)
    const onDelivery = { post: structuredClone(current.paths['/pets'].post) }
    withCallback.paths['/webhooks'].post.callbacks = { delivery: { '{$request.body#/url}': onDelivery } }
    const without = structuredClone(withCallback)
    delete without.paths['/webhooks'].post.callbacks.delivery['{$request.body#/url}'].post
    assert.ok(
      breakingChanges(withCallback, without, accepted).some(
        (change) =>
          change.action === 'remove' &&
          change.path === 'paths//webhooks/post/callbacks/delivery/{$request.body#/url}/post',
      ),
    )
  })

  it('passes additive changes: a new optional property, a new operation, a new optional query parameter', () => {
    const changes = judged((document) => {
      schemas(document).NewPet.properties.nickname = { type: 'string', maxLength: 40 }
      schemas(document).Pet.properties.nickname = { type: 'string', maxLength: 40 }
      document.paths['/pets/{petId}/photos'] = {
        get: { ...structuredClone(document.paths['/pets/{petId}'].get), operationId: 'listPetPhotos' },
      }
      document.paths['/store/orders'].get.parameters.push({
        name: 'petId',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1 },
      })
      document.tags.push({ name: 'categories', description: 'Categories.' })
    })
    assert.deepEqual(changes, { baseline: [], release: [] })
  })

  it('fails when what the service reads refuses the properties it does not name, where it took them', () => {
    // Requests are closed by additionalProperties: false; NewOrder without it took any other property.
    const open = edited((document) => delete schemas(document).NewOrder.additionalProperties)
    assert.deepEqual(changesBetween(open, current), [
      'add paths//store/orders/post/requestBody/content/application/json/schema/additionalProperties',
    ])
    assert.deepEqual(changesBetween(current, open), [])
  })

  it('fails when a keyword the rules do not compare appears in what the service reads or leaves what it writes', () => {
    const newPet = 'paths//pets/post/requestBody/content/application/json/schema'
    const dependent = edited((document) => (schemas(document).NewPet.dependentRequired = { status: ['name'] }))
    assert.deepEqual(changesBetween(current, dependent), [`add ${newPet}/dependentRequired`])
    assert.deepEqual(changesBetween(dependent, current), [])
    const conditional = edited((document) =>
      Object.assign(schemas(document).NewPet, { if: { required: ['status'] }, then: { required: ['name'] } }),
    )
    assert.deepEqual(changesBetween(current, conditional), [`add ${newPet}/if`, `add ${newPet}/then`])
    const tuple = edited((document) => (schemas(document).NewWebhook.properties.types.prefixItems = [{ const: 'x' }]))
    assert.deepEqual(changesBetween(current, tuple), [
      'add paths//webhooks/post/requestBody/content/application/json/schema/properties/types/prefixItems',
    ])
    // A schema may be a boolean: false refuses every value, true takes (and may send) any.
    const refused = edited((document) => (schemas(document).NewPet.properties.status = false))
    assert.deepEqual(changesBetween(current, refused), [`add ${newPet}/properties/status/not`])
    const anything = edited((document) => (schemas(document).Pet.properties.name = true))
    const name = 'paths//pets/{petId}/get/responses/200/content/application/json/schema/properties/name'
    assert.ok(changesBetween(current, anything).includes(`replace ${name}/type`))
    // A map whose values were strings may send any value once its additionalProperties is gone.
    const labels = (document: Json): Json => (schemas(document).Pet.properties.labels = { type: 'object' })
    const map = edited((document) => (labels(document).additionalProperties = { type: 'string' }))
    const anyLabel = `${name.slice(0, -'/name'.length)}/labels/additionalProperties/type`
    assert.ok(changesBetween(map, edited(labels)).includes(`replace ${anyLabel}`))
    // In what the service writes, such a keyword may not disappear: it ruled out what clients may now be sent.
    const ruled = edited((document) => (schemas(document).Pet.properties.name.not = { const: 'Rex' }))
    assert.ok(changesBetween(ruled, current).includes(`remove ${name}/not`))
  })

  it('passes a request type widened and a response type narrowed, and fails the reverse', () => {
    // Every integer is a number: a request that sent one is still taken, a client that read a number still reads it.
    const quantity = (document: Json): Json => schemas(document).NewOrder.properties.quantity
    const field = 'paths//store/orders/post/requestBody/content/application/json/schema/properties/quantity/type'
    assert.deepEqual(
      judged((document) => (quantity(document).type = 'number')),
      { baseline: [], release: [] },
    )
    assert.deepEqual(
      judged((document) => (quantity(document).type = ['integer', 'string'])),
      { baseline: [], release: [] },
    )
    const asNumber = structuredClone(current)
    quantity(asNumber).type = 'number'
    assert.deepEqual(
      breakingChanges(asNumber, current, accepted).map((change) => `${change.action} ${change.path}`),
      [`replace ${field}`],
    )
    const sentAsNumber = structuredClone(current)
    schemas(sentAsNumber).Order.properties.quantity.type = 'number'
    assert.deepEqual(
      breakingChanges(sentAsNumber, current, accepted).map((change) => `${change.action} ${change.path}`),
      [],
    )
    assert.ok(
      breakingChanges(current, sentAsNumber, accepted).some(
        (change) => change.action === 'replace' && change.path === `${ORDER_200}/properties/quantity/type`,
      ),
    )
  })

  it('passes a new optional query parameter placed before a parameter whose replaced value was decided', () => {
    // The diff tool numbers parameters as the reference has them: If-Match stays parameters/2 in its path.
    const changes = judged((document) =>
      document.paths['/pets/{petId}'].patch.parameters.splice(1, 0, {
        name: 'dryRun',
        in: 'query',
        required: false,
        schema: { type: 'boolean' },
      }),
    )
    assert.deepEqual(changes, { baseline: [], release: [] })
    // Our rules number a parameter that was there as the reference has it too: types stays parameters/2.
    const beforeTypes = judged((document) =>
      document.paths['/events'].get.parameters.splice(0, 0, {
        name: 'order',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: ['ascending'] },
      }),
    )
    assert.deepEqual(beforeTypes, { baseline: [], release: [] })
  })

  it('passes a new event type (value, data shape, longer subscription lists) only by the recorded decisions', () => {
    // A resource this document does not have yet; its data is the next branch of the union.
    const branch = schemas(current).Event.properties.data.anyOf.length
    const edit = (document: Json) => {
      schemas(document).EventType.enum.push('tag.created')
      schemas(document).Event.properties.data.anyOf.push({ type: 'object', properties: { tag: {} } })
      for (const name of ['Webhook', 'NewWebhook', 'WebhookPatch', 'WebhookWithSecret'])
        schemas(document)[name].properties.types.maxItems += 1
    }
    assert.deepEqual(judged(edit), { baseline: [], release: [] })
    const withoutDecisions = structuredClone(current)
    edit(withoutDecisions)
    // Against the committed document as the next release's snapshot: it has the webhooks section.
    const changes = breakingChanges(current, withoutDecisions, []).map((c) => `${c.action} ${c.path}`)
    const event = 'paths//events/get/responses/200/content/application/json/schema/items/properties'
    const delivered = 'webhooks/event/post/requestBody/content/application/json/schema/properties'
    for (const expected of [
      `add ${event}/type/enum`,
      `add ${event}/data/anyOf/${branch}`,
      `add ${delivered}/type/enum`,
      `add ${delivered}/data/anyOf/${branch}`,
      'replace paths//webhooks/post/responses/201/content/application/json/schema/properties/types/maxItems',
    ])
      assert.ok(changes.includes(expected), `${expected} in ${JSON.stringify(changes.slice(0, 8))}`)
  })

  it('judges the document the code generates: Order.complete made a string in the code fails', async () => {
    // The TypeBox schema object the route serialises with and documents, edited in place as a code change would.
    const complete = OrderSchema.properties.complete
    const original: unknown = Reflect.get(complete, 'type')
    Reflect.set(complete, 'type', 'string')
    let generated: Json
    try {
      generated = JSON.parse(await generateDocument()) as Json
    } finally {
      Reflect.set(complete, 'type', original)
    }
    assert.equal(generated.components.schemas.Order.properties.complete.type, 'string')
    const changes = breakingChanges(references.release, generated, accepted).map((c) => `${c.action} ${c.path}`)
    assert.ok(changes.includes(`replace ${ORDER_200}/properties/complete/type`), JSON.stringify(changes.slice(0, 5)))
  })

  it('takes the newest release as the last one, a pre-release before its release', () => {
    assert.deepEqual(['1.1.0', '1.0.0', '1.1.0-rc.10', '1.10.0', '1.1.0-rc.2', '1.2.0'].sort(byVersion), [
      '1.0.0',
      '1.1.0-rc.2',
      '1.1.0-rc.10',
      '1.1.0',
      '1.2.0',
      '1.10.0',
    ])
  })
})
