// Category records (beta): a name for each group of animals. Reads need pets:read, writes pets:write.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { CursorCodec } from '../http/cursor.js'
import { entityTag, ifMatchCondition } from '../http/entity-tag.js'
import { readConditionStatus } from '../http/read-conditions.js'
import { ETagHeaderSchema } from '../http/entity-tag.schema.js'
import {
  BODILESS_ERRORS,
  BODY_ERRORS,
  errorResponses,
  EVERY_OPERATION_ERRORS,
  IDEMPOTENCY_ERRORS,
} from '../http/errors/error.schema.js'
import { rejectOtherMethods } from '../http/errors/method-not-allowed.js'
import { DEFAULT_PAGE_SIZE, nextPageLink } from '../http/pagination.js'
import { API_PREFIX } from '../http/paths.js'
import { publicOrigin } from '../http/request/public-origin.js'
import { refuseBody } from '../http/json/refuse-body.js'
import { LocationHeader, NextPageLinkHeader } from '../http/openapi/response-headers.js'
import { NoQuery } from '../http/openapi/schema-primitives.js'
import { BETA } from '../http/openapi/stability.js'
import type { Idempotency } from '../idempotency/idempotent.js'
import { IdempotencyHeaders, ReplayedHeaderSchema } from '../idempotency/idempotency.schema.js'
import { DESCRIPTIONS } from './category.descriptions.js'
import type { CategoryService, VersionedCategory } from './category.service.js'
import {
  CategoriesSchema,
  CategoryDeleteHeaders,
  CategoryIdParams,
  CategoryPutHeaders,
  CategoryReadHeaders,
  CategorySchema,
  ListCategoriesQuery,
  NewCategorySchema,
} from './category.schema.js'

export interface CategoryRoutesOptions {
  categories: CategoryService
  cursors: CursorCodec
  idempotency: Idempotency
  publicBaseUrl: string | undefined
}

const TAGS = ['Categories']
const READ = { scope: 'pets:read' } as const
const WRITE = { scope: 'pets:write' } as const
const WRITE_ERRORS = [...EVERY_OPERATION_ERRORS, ...IDEMPOTENCY_ERRORS] as const

const described = <Schema extends object>(schema: Schema, description: string, headers?: object) => ({
  ...schema,
  description,
  ...(headers ? { headers } : {}),
})

export const categoryRoutes: FastifyPluginAsyncTypebox<CategoryRoutesOptions> = async (
  app,
  { categories, cursors, idempotency, publicBaseUrl },
) => {
  const locationOf = (origin: string, id: number) => `${origin}${API_PREFIX}/categories/${id}`
  const tagged = ({ category, version }: VersionedCategory) => ({ etag: entityTag(category.id, version) })

  app.get(
    '/categories',
    {
      config: READ,
      schema: {
        operationId: 'listCategories',
        tags: TAGS,
        summary: '[beta] List categories',
        description: DESCRIPTIONS.listCategories,
        ...BETA,
        querystring: ListCategoriesQuery,
        response: {
          200: described(CategoriesSchema, 'A page of categories.', { Link: NextPageLinkHeader }),
          ...errorResponses(...EVERY_OPERATION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { limit = DEFAULT_PAGE_SIZE, cursor } = request.query
      const afterId = cursor === undefined ? undefined : cursors.decode(cursor, undefined)
      const page = await categories.list({ afterId, limit })
      const url = `${publicOrigin(request, publicBaseUrl)}${API_PREFIX}/categories`
      const link = nextPageLink(url, page, (nextAfterId) => ({
        limit: String(limit),
        cursor: cursors.encode({ afterId: nextAfterId, status: undefined }),
      }))
      if (link !== undefined) reply.header('link', link)
      return page.items
    },
  )

  app.post(
    '/categories',
    {
      config: WRITE,
      schema: {
        operationId: 'createCategory',
        tags: TAGS,
        summary: '[beta] Add a category',
        description: DESCRIPTIONS.createCategory,
        ...BETA,
        querystring: NoQuery,
        headers: IdempotencyHeaders,
        body: NewCategorySchema,
        response: {
          201: described(CategorySchema, 'The category as stored, with its assigned id.', {
            Location: LocationHeader,
            ...ETagHeaderSchema,
            ...ReplayedHeaderSchema,
          }),
          ...errorResponses(...WRITE_ERRORS, 'conflict', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const origin = publicOrigin(request, publicBaseUrl)
      return idempotency.run(
        request,
        reply,
        (uow) => categories.create(uow, request.body),
        (created) => ({
          status: 201,
          body: created.category,
          headers: { location: locationOf(origin, created.category.id), ...tagged(created) },
        }),
      )
    },
  )

  app.get(
    '/categories/:categoryId',
    {
      config: READ,
      schema: {
        operationId: 'getCategory',
        tags: TAGS,
        summary: '[beta] Get a category',
        description: DESCRIPTIONS.getCategory,
        ...BETA,
        querystring: NoQuery,
        params: CategoryIdParams,
        headers: CategoryReadHeaders,
        response: {
          200: described(CategorySchema, 'The category.', ETagHeaderSchema),
          304: Type.Null({
            description: 'The category is unchanged: its ETag is one `If-None-Match` names. No body.',
            headers: ETagHeaderSchema,
          }),
          ...errorResponses(...EVERY_OPERATION_ERRORS, 'not_found', 'precondition_failed'),
        },
      },
    },
    async (request, reply) => {
      const found = await categories.get(request.params.categoryId)
      const { etag } = tagged(found)
      reply.header('etag', etag)
      // No body at all (not even `null`): undefined skips the serialiser.
      const status = readConditionStatus(request.headers, 'category', found.category.id, found.version)
      if (status === 304) return reply.code(304).send(undefined as never)
      return found.category
    },
  )

  app.put(
    '/categories/:categoryId',
    {
      config: WRITE,
      schema: {
        operationId: 'putCategory',
        tags: TAGS,
        summary: '[beta] Create or rename a category',
        description: DESCRIPTIONS.putCategory,
        ...BETA,
        querystring: NoQuery,
        params: CategoryIdParams,
        headers: CategoryPutHeaders,
        body: NewCategorySchema,
        response: {
          200: described(CategorySchema, 'The category renamed, with its new `ETag`.', {
            ...ETagHeaderSchema,
            ...ReplayedHeaderSchema,
          }),
          201: described(CategorySchema, 'The category created with this id.', {
            Location: LocationHeader,
            ...ETagHeaderSchema,
            ...ReplayedHeaderSchema,
          }),
          ...errorResponses(...WRITE_ERRORS, 'conflict', 'precondition_failed', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { categoryId } = request.params
      const origin = publicOrigin(request, publicBaseUrl)
      const conditions = {
        ifMatch: ifMatchCondition(request.headers['if-match'], categoryId),
        onlyIfAbsent: request.headers['if-none-match'] === '*',
      }
      return idempotency.run(
        request,
        reply,
        (uow) => categories.put(uow, categoryId, request.body, conditions),
        (outcome) => ({
          status: outcome.created ? 201 : 200,
          body: outcome.category,
          headers: { ...(outcome.created ? { location: locationOf(origin, categoryId) } : {}), ...tagged(outcome) },
        }),
      )
    },
  )

  app.delete(
    '/categories/:categoryId',
    {
      config: WRITE,
      preValidation: refuseBody,
      schema: {
        operationId: 'deleteCategory',
        tags: TAGS,
        summary: '[beta] Delete a category',
        description: DESCRIPTIONS.deleteCategory,
        ...BETA,
        querystring: NoQuery,
        params: CategoryIdParams,
        headers: CategoryDeleteHeaders,
        response: {
          204: Type.Null({ description: 'The category is deleted. No body.', headers: ReplayedHeaderSchema }),
          ...errorResponses(...WRITE_ERRORS, 'not_found', 'conflict', 'precondition_failed', ...BODILESS_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { categoryId } = request.params
      const condition = ifMatchCondition(request.headers['if-match'], categoryId)
      return idempotency.run(
        request,
        reply,
        (uow) => categories.delete(uow, categoryId, condition),
        () => ({ status: 204, body: undefined }),
      )
    },
  )

  rejectOtherMethods(app, '/categories', ['GET', 'POST'])
  rejectOtherMethods(app, '/categories/:categoryId', ['GET', 'PUT', 'DELETE'])
}
