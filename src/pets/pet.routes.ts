import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { DataAccess } from '../db/database.js'
import { VersionedCache } from '../db/versioned-cache.js'
import { sendJsonText } from '../http/json-text.js'
import { errorResponses } from '../http/error.schema.js'
import { ApiError } from '../http/errors.js'
import type { Metrics } from '../http/metrics.js'
import { rejectOtherMethods } from '../http/method-not-allowed.js'
import { API_PREFIX } from '../http/openapi-info.js'
import { publicOrigin } from '../http/public-origin.js'
import type { Idempotency } from '../idempotency/idempotent.js'
import { IdempotencyHeaders, ReplayedHeaderSchema } from '../idempotency/idempotency.schema.js'
import type { CursorCodec } from './cursor.js'
import { markDeprecated } from './deprecation.js'
import { toPet } from './pet.mapper.js'
import { queryBuilderPetJson } from './pet-json.js'
import { sqlitePetJson } from './pet-json.sqlite.js'
import { insertPet } from './pet.repository.js'
import { ListPetsQuery, NewPetSchema, NoQuery, PetIdParams, PetSchema, PetsSchema } from './pet.schema.js'

export interface PetRoutesOptions {
  data: DataAccess
  cursors: CursorCodec
  metrics: Metrics
  idempotency: Idempotency
  publicBaseUrl: string | undefined
}

const DEFAULT_LIMIT = 20

export const petRoutes: FastifyPluginAsyncTypebox<PetRoutesOptions> = async (app, { data, cursors, metrics, idempotency, publicBaseUrl }) => {
  // Pages and pets as JSON text, reused until anyone commits (see VersionedCache): repeated reads of an
  // unchanged catalogue cost neither a query nor serialisation.
  const pages = new VersionedCache<{ body: string; nextQuery: string | undefined }>(data.readVersion)
  const petBodies = new VersionedCache<string | null>(data.readVersion)
  const reads = data.sqliteReader ? sqlitePetJson(data.sqliteReader) : queryBuilderPetJson(data.read)

  app.get('/pets', {
    config: { scope: 'pets:read' },
    schema: {
      operationId: 'listPets',
      tags: ['Pets'],
      summary: 'List all animals',
      description: 'Animals in ascending id order, optionally filtered by status. When more exist, `Link: <…>; rel="next"` points at the next page.',
      querystring: ListPetsQuery,
      response: {
        200: {
          ...PetsSchema,
          description: 'A page of animals.',
          headers: { Link: Type.String({ description: 'RFC 8288 link to the next page (`rel="next"`), present only when more animals exist.' }) },
        },
        ...errorResponses('invalid_request', 'unauthorized', 'forbidden', 'rate_limited', 'internal_error', 'unavailable'),
      },
    },
  }, async (request, reply) => {
    const { limit = DEFAULT_LIMIT, status, cursor } = request.query
    const afterId = cursor === undefined ? undefined : cursors.decode(cursor, status)
    const page = await pages.get(`${status ?? ''} ${afterId ?? ''} ${limit}`, async () => {
      const { json, nextAfterId } = await reads.page({ status, afterId, limit })
      if (nextAfterId === undefined) return { body: json, nextQuery: undefined }
      // The next page's query (with its signed cursor) is cached with the page: it depends on nothing else.
      const cursor = cursors.encode({ afterId: nextAfterId, status })
      return { body: json, nextQuery: String(new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}), cursor })) }
    })
    if (page.nextQuery !== undefined) reply.header('link', `<${publicOrigin(request, publicBaseUrl)}${API_PREFIX}/pets?${page.nextQuery}>; rel="next"`)
    return sendJsonText(reply, page.body)
  })

  app.post('/pets', {
    config: { scope: 'pets:write' },
    schema: {
      operationId: 'createPet',
      tags: ['Pets'],
      summary: 'Add an animal',
      description: 'Adds an animal; the service assigns its id. `status` defaults to `available`. Safe to retry with an `Idempotency-Key`.',
      querystring: NoQuery,
      headers: IdempotencyHeaders,
      body: NewPetSchema,
      response: {
        201: {
          ...PetSchema,
          description: 'The animal as stored, with its assigned id.',
          headers: { Location: Type.String({ description: 'Absolute URL of the new animal.' }), ...ReplayedHeaderSchema },
        },
        ...errorResponses('invalid_request', 'unauthorized', 'forbidden', 'idempotency_key_in_flight', 'idempotency_key_reused', 'payload_too_large', 'unsupported_media_type', 'rate_limited', 'internal_error', 'unavailable'),
      },
    },
  }, async (request, reply) => {
    const { name, categoryId, status = 'available' } = request.body
    const origin = publicOrigin(request, publicBaseUrl)
    return idempotency.run(request, reply, async (trx) => {
      const row = await insertPet(trx, { name, category_id: categoryId, status })
      return { status: 201, body: toPet(row), headers: { location: `${origin}${API_PREFIX}/pets/${row.id}` } }
    })
  })

  app.get('/pets/:petId', {
    config: { scope: 'pets:read' },
    onRequest: markDeprecated({ operation: 'getPet', successor: (request) => `${publicOrigin(request, publicBaseUrl)}${API_PREFIX}/pets`, metrics }),
    schema: {
      operationId: 'getPet',
      tags: ['Pets'],
      summary: 'Get an animal (deprecated)',
      description: 'Deprecated since 2026-01-01 and removed on 2030-12-05: use `GET /pets` with the `status` filter. Responses carry `Deprecation`, `Sunset` and `Link: rel="successor-version"`.',
      deprecated: true,
      'x-deprecated-sunset': '2030-12-05',
      querystring: NoQuery,
      params: PetIdParams,
      response: {
        200: { ...PetSchema, description: 'The animal.' },
        ...errorResponses('invalid_request', 'unauthorized', 'forbidden', 'not_found', 'rate_limited', 'internal_error', 'unavailable'),
      },
    },
  }, async (request, reply) => {
    const { petId } = request.params
    const body = await petBodies.get(String(petId), async () => (await reads.pet(petId)) ?? null)
    if (body === null) throw new ApiError('not_found', `No pet has id ${petId}.`)
    return sendJsonText(reply, body)
  })

  rejectOtherMethods(app, '/pets', ['GET', 'POST'])
  rejectOtherMethods(app, '/pets/:petId', ['GET'])
}
