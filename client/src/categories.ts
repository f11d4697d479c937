// [beta] Category records: list, page through, add, read, create-or-rename and delete categories.
import {
  dataOf,
  entityTagOf,
  everyItem,
  newIdempotencyKey,
  type CallOptions,
  type Context,
  type Page,
  type WriteOptions,
} from './context.js'
import { nextLinkParameter } from './headers.js'
import type { ConditionalWriteOptions } from './pets.js'
import type { Category, ListCategoriesQuery, NewCategory } from './schemas.js'

/** A category and its ETag: send the ETag as `ifMatch` to change the category only if nobody changed it since. */
export interface CategoryWithETag {
  category: Category
  etag: string
}

export interface PutCategoryOptions extends ConditionalWriteOptions {
  /** Only create: 412 `precondition_failed` if a category with this id exists already (`If-None-Match: *`). */
  onlyIfAbsent?: boolean
}

export interface CategoriesApi {
  /** One page of categories in ascending id order; pass `nextCursor` for the next. */
  list(query?: ListCategoriesQuery, options?: CallOptions): Promise<Page<Category>>
  /** Every category, page after page: `for await (const category of client.categories.listAll())`. */
  listAll(query?: Omit<ListCategoriesQuery, 'cursor'>, options?: CallOptions): AsyncGenerator<Category, void, undefined>
  /** Adds a category under a new id; 409 `conflict` when another has the name (ignoring case). */
  create(category: NewCategory, options?: WriteOptions): Promise<CategoryWithETag>
  get(categoryId: number, options?: CallOptions): Promise<CategoryWithETag>
  /** Creates the category with this id (`created: true`) or renames it. */
  put(
    categoryId: number,
    category: NewCategory,
    options?: PutCategoryOptions,
  ): Promise<CategoryWithETag & { created: boolean }>
  /** Deletes a category (409 while an animal carries its id). */
  remove(categoryId: number, options?: ConditionalWriteOptions): Promise<void>
}

const conditionHeaders = ({ ifMatch, onlyIfAbsent }: PutCategoryOptions) => ({
  ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }),
  ...(onlyIfAbsent ? { 'If-None-Match': '*' as const } : {}),
})

export function categoriesApi({ api, transport }: Context): CategoriesApi {
  const list = async (query: ListCategoriesQuery = {}, { signal }: CallOptions = {}): Promise<Page<Category>> => {
    const answer = await api.GET('/categories', {
      params: { query },
      signal,
      fetch: transport.fetchFor({ operationId: 'listCategories' }),
    })
    return { items: dataOf(answer), nextCursor: nextLinkParameter(answer.response.headers, 'cursor') }
  }
  return {
    list,
    listAll: (query = {}, options = {}) =>
      everyItem((cursor) => list({ ...query, ...(cursor === undefined ? {} : { cursor }) }, options)),
    async create(category, { signal, idempotencyKey = newIdempotencyKey() } = {}) {
      const answer = await api.POST('/categories', {
        params: { header: { 'Idempotency-Key': idempotencyKey } },
        body: category,
        signal,
        fetch: transport.fetchFor({ operationId: 'createCategory' }),
      })
      return { category: dataOf(answer), etag: entityTagOf(answer.response) }
    },
    async get(categoryId, { signal } = {}) {
      const answer = await api.GET('/categories/{categoryId}', {
        params: { path: { categoryId } },
        signal,
        fetch: transport.fetchFor({ operationId: 'getCategory' }),
      })
      return { category: dataOf(answer), etag: entityTagOf(answer.response) }
    },
    async put(categoryId, category, options = {}) {
      const { signal, idempotencyKey = newIdempotencyKey() } = options
      const answer = await api.PUT('/categories/{categoryId}', {
        params: {
          path: { categoryId },
          header: { 'Idempotency-Key': idempotencyKey, ...conditionHeaders(options) },
        },
        body: category,
        signal,
        fetch: transport.fetchFor({ operationId: 'putCategory' }),
      })
      const stored = dataOf(answer)
      return { category: stored, etag: entityTagOf(answer.response), created: answer.response.status === 201 }
    },
    async remove(categoryId, { signal, ifMatch, idempotencyKey = newIdempotencyKey() } = {}) {
      const answer = await api.DELETE('/categories/{categoryId}', {
        params: {
          path: { categoryId },
          header: { 'Idempotency-Key': idempotencyKey, ...conditionHeaders({ ifMatch }) },
        },
        signal,
        fetch: transport.fetchFor({ operationId: 'deleteCategory' }),
      })
      dataOf(answer)
    },
  }
}
