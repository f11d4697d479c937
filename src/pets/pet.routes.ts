import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { CursorCodec } from '../http/cursor.js'
import { entityTag } from '../http/entity-tag.js'
import { readConditionStatus } from '../http/read-conditions.js'
import { ETagHeaderSchema, IfMatchOnReadHeader, IfNoneMatchHeader } from '../http/entity-tag.schema.js'
import {
  BODY_ERRORS,
  errorResponses,
  EVERY_OPERATION_ERRORS,
  IDEMPOTENCY_ERRORS,
  withHeaders,
} from '../http/errors/error.schema.js'
import type { Metrics } from '../http/metrics/metrics.js'
import { rejectOtherMethods } from '../http/errors/method-not-allowed.js'
import { DEFAULT_PAGE_SIZE, nextPageLink } from '../http/pagination.js'
import { API_PREFIX } from '../http/paths.js'
import { publicOrigin } from '../http/request/public-origin.js'
import { LocationHeader, NextPageLinkHeader } from '../http/openapi/response-headers.js'
import { NoQuery } from '../http/openapi/schema-primitives.js'
import type { Idempotency } from '../idempotency/idempotent.js'
import { IdempotencyHeaders, ReplayedHeaderSchema } from '../idempotency/idempotency.schema.js'
import { DeprecationHeadersSchema, markDeprecated } from './deprecation.js'
import type { PetStatus } from './pet.repository.js'
import type { PetService } from './pet.service.js'
import { ListPetsQuery, NewPetSchema, PetIdParams, PetSchema, PetsSchema } from './pet.schema.js'

export interface PetRoutesOptions {
  pets: PetService
  cursors: CursorCodec<PetStatus>
  metrics: Metrics
  idempotency: Idempotency
  publicBaseUrl: string | undefined
}

export const petRoutes: FastifyPluginAsyncTypebox<PetRoutesOptions> = async (
  app,
  { pets, cursors, metrics, idempotency, publicBaseUrl },
) => {
  app.get(
    '/pets',
    {
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'listPets',
        tags: ['Pets'],
        summary: 'List all animals',
        description:
          'Animals in ascending id order, optionally filtered by status and by `categoryId`. When more exist, ' +
          '`Link: <…>; rel="next"` points at the next page.',
        querystring: ListPetsQuery,
        response: {
          200: {
            ...PetsSchema,
            description: 'A page of animals.',
            headers: { Link: NextPageLinkHeader },
          },
          ...errorResponses(...EVERY_OPERATION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { limit = DEFAULT_PAGE_SIZE, status, categoryId, cursor } = request.query
      const afterId = cursor === undefined ? undefined : cursors.decode(cursor, status, categoryId)
      const page = await pets.list({ status, categoryId, afterId, limit })
      const link = nextPageLink(`${publicOrigin(request, publicBaseUrl)}${API_PREFIX}/pets`, page, (nextAfterId) => ({
        limit: String(limit),
        ...(status ? { status } : {}),
        ...(categoryId === undefined ? {} : { categoryId: String(categoryId) }),
        cursor: cursors.encode({ afterId: nextAfterId, status, categoryId }),
      }))
      if (link !== undefined) reply.header('link', link)
      return page.items
    },
  )

  app.post(
    '/pets',
    {
      config: { scope: 'pets:write' },
      schema: {
        operationId: 'createPet',
        tags: ['Pets'],
        summary: 'Add an animal',
        description:
          'Adds an animal; the service assigns its id. `status` defaults to `available`. Safe to retry with an ' +
          '`Idempotency-Key`.',
        querystring: NoQuery,
        headers: IdempotencyHeaders,
        body: NewPetSchema,
        response: {
          201: {
            ...PetSchema,
            description: 'The animal as stored, with its assigned id.',
            headers: { Location: LocationHeader, ...ETagHeaderSchema, ...ReplayedHeaderSchema },
          },
          ...errorResponses(...EVERY_OPERATION_ERRORS, ...IDEMPOTENCY_ERRORS, ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      // Worked out first: a Host header that cannot make a URL must be refused before the pet is created, not after.
      const origin = publicOrigin(request, publicBaseUrl)
      return idempotency.run(
        request,
        reply,
        (uow) => pets.create(uow, request.body),
        ({ pet, version }) => ({
          status: 201,
          body: pet,
          headers: { location: `${origin}${API_PREFIX}/pets/${pet.id}`, etag: entityTag(pet.id, version) },
        }),
      )
    },
  )

  app.get(
    '/pets/:petId',
    {
      config: { scope: 'pets:read' },
      onRequest: markDeprecated({
        operation: 'getPet',
        successor: (request) => `${publicOrigin(request, publicBaseUrl)}${API_PREFIX}/pets`,
        metrics,
      }),
      schema: {
        operationId: 'getPet',
        tags: ['Pets'],
        summary: 'Get an animal (deprecated)',
        description:
          'Deprecated since 2026-01-01 and removed on 2030-12-05: use `GET /pets` with the `status` filter. ' +
          'Responses carry `Deprecation`, `Sunset` and `Link: rel="successor-version"`. ' +
          'The animal comes with its `ETag`; with `If-None-Match` naming it, the answer is 304 without a body ' +
          'while the animal is unchanged; with `If-Match` naming another, 412 with the current `ETag`.',
        deprecated: true,
        'x-deprecated-sunset': '2030-12-05',
        querystring: NoQuery,
        params: PetIdParams,
        headers: Type.Object({ 'If-Match': IfMatchOnReadHeader, 'If-None-Match': IfNoneMatchHeader }),
        response: {
          200: {
            ...PetSchema,
            description: 'The animal.',
            headers: { ...ETagHeaderSchema, ...DeprecationHeadersSchema },
          },
          304: Type.Null({
            description: 'The animal is unchanged: its ETag is one `If-None-Match` names. No body.',
            headers: { ...ETagHeaderSchema, ...DeprecationHeadersSchema },
          }),
          ...withHeaders(
            errorResponses('invalid_request', 'not_found', 'precondition_failed'),
            DeprecationHeadersSchema,
          ),
          // Answered before the route (and its deprecation headers) is reached.
          ...errorResponses(...EVERY_OPERATION_ERRORS.filter((code) => code !== 'invalid_request')),
        },
      },
    },
    async (request, reply) => {
      const { pet, version } = await pets.get(request.params.petId)
      const tag = entityTag(pet.id, version)
      reply.header('etag', tag)
      // No body at all (not even `null`): undefined skips the serialiser.
      if (readConditionStatus(request.headers, 'pet', pet.id, version) === 304)
        return reply.code(304).send(undefined as never)
      return pet
    },
  )

  rejectOtherMethods(app, '/pets', ['GET', 'POST'])
  rejectOtherMethods(app, '/pets/:petId', ['GET', 'PATCH', 'DELETE'])
}
