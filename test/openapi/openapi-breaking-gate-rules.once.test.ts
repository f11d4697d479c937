// The breaking-change gate's rules beyond the table of breaks: webhooks and their headers, bounds and formats,
// recorded decisions, closed and widened schemas, additive changes that pass, and a break made in the code itself
// (the document generated from it). Each is judged against the documents clients hold.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { breakingChanges, byVersion } from '../../scripts/openapi-breaking.js'
import { generateDocument } from '../../scripts/write-openapi.js'
import { OrderSchema } from '../../src/orders/order.schema.js'
import {
  accepted,
  changesBetween,
  current,
  edited,
  judged,
  ORDER_200,
  references,
  schemas,
  type Json,
} from '../helpers/openapi-gate.js'

describe("the breaking-change gate's rules", () => {
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
    assert.deepEqual(changesBetween(current, refused), [
      `add ${newPet}/properties/status/not`,
      `remove ${newPet}/properties/status/x-default`,
    ])
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

  it('fails when the value a request may leave out is taken as another, or is no longer stated', () => {
    const body = 'paths//store/orders/post/requestBody/content/application/json/schema/properties/quantity'
    const quantity = (document: Json): Json => schemas(document).NewOrder.properties.quantity
    assert.equal(quantity(current)['x-default'], 1)
    assert.equal(schemas(current).NewPet.properties.status['x-default'], 'available')
    const two = edited((document) => (quantity(document)['x-default'] = 2))
    assert.deepEqual(changesBetween(current, two), [`replace ${body}/x-default`])
    const unstated = edited((document) => delete quantity(document)['x-default'])
    assert.deepEqual(changesBetween(current, unstated), [`remove ${body}/x-default`])
    // Stated as `default` instead, the value is the same: no change. Stated where there was none: no change either.
    const moved = edited((document) => {
      delete quantity(document)['x-default']
      quantity(document).default = 1
    })
    assert.deepEqual(changesBetween(current, moved), [])
    assert.deepEqual(changesBetween(unstated, current), [])
    // The page size a list request leaves out is a parameter's `default`: judged the same way.
    const limit = edited((document) => {
      const parameter = (document.paths['/pets'].get.parameters as Json[]).find((each) => each.name === 'limit')
      if (parameter) parameter.schema.default = 50
    })
    assert.deepEqual(changesBetween(current, limit), ['replace paths//pets/get/parameters/0/schema/default'])
    // What the service writes may change its defaults: a client reads what it is sent.
    const sent = edited((document) => (schemas(document).Order.properties.quantity['x-default'] = 3))
    assert.deepEqual(changesBetween(current, sent), [])
  })

  it("fails when the servers' base path moves, and passes a change of host", () => {
    const moved = edited((document) => {
      for (const server of document.servers as Json[]) server.url = String(server.url).replace(/\/v1$/, '/v2')
    })
    assert.deepEqual(changesBetween(references.release, moved), ['remove servers//v1'])
    const rehosted = edited((document) => {
      for (const server of document.servers as Json[])
        server.url = String(server.url).replace(/^https?:\/\/[^/]+/, 'https://pets.example.net')
    })
    assert.deepEqual(changesBetween(references.release, rehosted), [])
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
