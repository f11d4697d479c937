import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { DataAccess } from '../db/database.js'
import { errorResponses } from '../http/error.schema.js'
import { ApiError } from '../http/errors.js'
import type { Metrics } from '../http/metrics.js'
import { rejectOtherMethods } from '../http/method-not-allowed.js'
import { API_PREFIX } from '../http/openapi-info.js'
import { publicOrigin } from '../http/public-origin.js'
import type { CursorCodec } from './cursor.js'
import { markDeprecated } from './deprecation.js'
import { toPet } from './pet.mapper.js'
import { findPetById, insertPet, listPets } from './pet.repository.js'
import { ListPetsQuery, NewPetSchema, NoQuery, PetIdParams, PetSchema, PetsSchema } from './pet.schema.js'

export interface PetRoutesOptions {
  data: DataAccess
  cursors: CursorCodec
  metrics: Metrics
  publicBaseUrl: string | undefined
}

const DEFAULT_LIMIT = 20

export const petRoutes: FastifyPluginAsyncTypebox<PetRoutesOptions> = async (app, { data, cursors, metrics, publicBaseUrl }) => {
  app.get('/pets', {
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
        ...errorResponses('invalid_request', 'unauthorized', 'internal_error', 'unavailable'),
      },
    },
  }, async (request, reply) => {
    const { limit = DEFAULT_LIMIT, status, cursor } = request.query
    const afterId = cursor === undefined ? undefined : cursors.decode(cursor, status)
    // One row more than asked tells whether a next page exists without a second query.
    const rows = await listPets(data.read, { status, afterId, limit: limit + 1 })
    const page = rows.slice(0, limit)
    const last = page.at(-1)
    if (rows.length > limit && last) {
      const next = new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}), cursor: cursors.encode({ afterId: last.id, status }) })
      reply.header('link', `<${publicOrigin(request, publicBaseUrl)}${API_PREFIX}/pets?${next}>; rel="next"`)
    }
    return page.map(toPet)
  })

  app.post('/pets', {
    schema: {
      operationId: 'createPet',
      tags: ['Pets'],
      summary: 'Add an animal',
      description: 'Adds an animal; the service assigns its id. `status` defaults to `available`.',
      querystring: NoQuery,
      body: NewPetSchema,
      response: {
        201: {
          ...PetSchema,
          description: 'The animal as stored, with its assigned id.',
          headers: { Location: Type.String({ description: 'Absolute URL of the new animal.' }) },
        },
        ...errorResponses('invalid_request', 'unauthorized', 'payload_too_large', 'unsupported_media_type', 'internal_error', 'unavailable'),
      },
    },
  }, async (request, reply) => {
    const { name, categoryId, status = 'available' } = request.body
    const row = await data.transaction((trx) => insertPet(trx, { name, category_id: categoryId, status }))
    reply.code(201).header('location', `${publicOrigin(request, publicBaseUrl)}${API_PREFIX}/pets/${row.id}`)
    return toPet(row)
  })

  app.get('/pets/:petId', {
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
        ...errorResponses('invalid_request', 'unauthorized', 'not_found', 'internal_error', 'unavailable'),
      },
    },
  }, async (request) => {
    const row = await findPetById(data.read, request.params.petId)
    if (!row) throw new ApiError('not_found', `No pet has id ${request.params.petId}.`)
    return toPet(row)
  })

  rejectOtherMethods(app, '/pets', ['GET', 'POST'])
  rejectOtherMethods(app, '/pets/:petId', ['GET'])
}
