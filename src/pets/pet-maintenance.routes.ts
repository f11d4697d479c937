// Catalogue maintenance (beta): changing and deleting animals, conditionally on their ETag (If-Match).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { onResponseHookHandler } from 'fastify'
import { Type } from 'typebox'
import { entityTag, ifMatchCondition } from '../http/entity-tag.js'
import { ETagHeaderSchema, IfMatchHeader } from '../http/entity-tag.schema.js'
import {
  BODILESS_ERRORS,
  BODY_ERRORS,
  errorResponses,
  EVERY_OPERATION_ERRORS,
  IDEMPOTENCY_ERRORS,
} from '../http/errors/error.schema.js'
import { PATCH_UNSUPPORTED_MEDIA_TYPE } from '../http/errors/patch-errors.js'
import { addJsonBodyParser } from '../http/json/json-body.js'
import { MERGE_PATCH, PATCH_MEDIA_TYPES } from '../http/json/media-type.js'
import type { Metrics } from '../http/metrics/metrics.js'
import { refuseBody } from '../http/json/refuse-body.js'
import { NoQuery } from '../http/openapi/schema-primitives.js'
import { BETA, BETA_NOTE } from '../http/openapi/stability.js'
import type { Idempotency } from '../idempotency/idempotent.js'
import { IdempotencyHeaders, REPLAYED_HEADER, ReplayedHeaderSchema } from '../idempotency/idempotency.schema.js'
import type { PetService } from './pet.service.js'
import { PetIdParams, PetPatchSchema, PetSchema } from './pet.schema.js'

export interface PetMaintenanceRoutesOptions {
  pets: PetService
  metrics: Metrics
  idempotency: Idempotency
}

/** What a conditional write to one animal (updatePet, deletePet) may answer besides its success. */
const CONDITIONAL_WRITE_ERRORS = errorResponses(
  ...EVERY_OPERATION_ERRORS,
  'not_found',
  'conflict',
  'precondition_failed',
  ...IDEMPOTENCY_ERRORS,
)

const ConditionalWriteHeaders = Type.Object({ ...IdempotencyHeaders.properties, 'If-Match': IfMatchHeader })

const CONDITIONS =
  'With `If-Match` (the `ETag` of an earlier response), the change is made only if nobody changed the animal ' +
  'since; otherwise 412 `precondition_failed` with the current `ETag`, and nothing changes. Safe to retry with an ' +
  '`Idempotency-Key`.'

/** /metrics: what the two operations did, not the replays of their stored responses. */
function countOutcomes(metrics: Metrics): onResponseHookHandler {
  return (request, reply, done) => {
    if (reply.getHeader(REPLAYED_HEADER) === undefined) {
      const operation = request.method === 'PATCH' ? 'updatePet' : 'deletePet'
      if (reply.statusCode === 412) metrics.preconditionFailures.inc({ operation })
      else if (reply.statusCode === 200 && operation === 'updatePet') metrics.petUpdates.inc()
      else if (reply.statusCode === 204 && operation === 'deletePet') metrics.petDeletes.inc()
    }
    done()
  }
}

export const petMaintenanceRoutes: FastifyPluginAsyncTypebox<PetMaintenanceRoutesOptions> = async (
  app,
  { pets, metrics, idempotency },
) => {
  addJsonBodyParser(app, MERGE_PATCH)
  app.addHook('onResponse', countOutcomes(metrics))

  app.patch(
    '/pets/:petId',
    {
      config: { scope: 'pets:write' },
      schema: {
        operationId: 'updatePet',
        tags: ['Pets'],
        summary: '[beta] Update an animal',
        description:
          `${BETA_NOTE}\n\nChanges an animal with a JSON Merge Patch (RFC 7396; \`${MERGE_PATCH}\`, or ` +
          `\`application/json\` read the same way): the properties given replace the stored ones, the others ` +
          'stay. ' +
          '`status` cannot be changed while the animal has a `placed` order (409): its status then follows the ' +
          'order. A patch that changes nothing answers 200 with the same `ETag`. ' +
          CONDITIONS,
        ...BETA,
        consumes: PATCH_MEDIA_TYPES,
        querystring: NoQuery,
        params: PetIdParams,
        headers: ConditionalWriteHeaders,
        body: PetPatchSchema,
        response: {
          200: {
            ...PetSchema,
            description: 'The animal as stored now, with its new `ETag`.',
            headers: { ...ETagHeaderSchema, ...ReplayedHeaderSchema },
          },
          ...CONDITIONAL_WRITE_ERRORS,
          ...errorResponses(...BODY_ERRORS),
          ...PATCH_UNSUPPORTED_MEDIA_TYPE,
        },
      },
    },
    async (request, reply) => {
      const { petId } = request.params
      const condition = ifMatchCondition(request.headers['if-match'], petId)
      return idempotency.run(
        request,
        reply,
        (uow) => pets.update(uow, petId, request.body, condition),
        ({ pet, version }) => ({
          status: 200,
          body: pet,
          headers: { etag: entityTag(pet.id, version) },
        }),
      )
    },
  )

  app.delete(
    '/pets/:petId',
    {
      config: { scope: 'pets:write' },
      preValidation: refuseBody,
      schema: {
        operationId: 'deletePet',
        tags: ['Pets'],
        summary: '[beta] Delete an animal',
        description:
          `${BETA_NOTE}\n\nRemoves an animal from the catalogue. From then on every operation on it answers 404, ` +
          'lists and cursors pass it by, and its id is never given to another animal; its completed and ' +
          'cancelled orders stay readable. ' +
          'Refused with 409 while it has a `placed` order (complete or cancel it first). No request body. ' +
          CONDITIONS,
        ...BETA,
        querystring: NoQuery,
        params: PetIdParams,
        headers: ConditionalWriteHeaders,
        response: {
          204: Type.Null({ description: 'The animal is deleted. No body.', headers: ReplayedHeaderSchema }),
          ...CONDITIONAL_WRITE_ERRORS,
          ...errorResponses(...BODILESS_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { petId } = request.params
      const condition = ifMatchCondition(request.headers['if-match'], petId)
      return idempotency.run(
        request,
        reply,
        (uow) => pets.delete(uow, petId, condition),
        () => ({ status: 204, body: undefined }),
      )
    },
  )
}
