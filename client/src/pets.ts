// The catalogue: list, page through, add, read (deprecated), change and delete animals.
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
import type { ListPetsQuery, NewPet, Pet, PetPatch } from './schemas.js'

/** An animal and its ETag: send the ETag as `ifMatch` to change the animal only if nobody changed it since. */
export interface PetWithETag {
  pet: Pet
  etag: string
}

export interface ConditionalWriteOptions extends WriteOptions {
  /**
   * An ETag (or `*`): the change is made only while the animal's ETag is this one; otherwise 412 `precondition_failed`.
   */
  ifMatch?: string
}

export interface PetsApi {
  /**
   * One page of animals in ascending id order; pass `nextCursor` (with the same `status` and `categoryId`: the
   * cursor belongs to its filter) for the next.
   */
  list(query?: ListPetsQuery, options?: CallOptions): Promise<Page<Pet>>
  /**
   * Every animal (optionally of one status or category), page after page:
   * `for await (const pet of client.pets.listAll())`.
   */
  listAll(query?: Omit<ListPetsQuery, 'cursor'>, options?: CallOptions): AsyncGenerator<Pet, void, undefined>
  /** Adds an animal; safe to retry (an Idempotency-Key is sent). */
  create(pet: NewPet, options?: WriteOptions): Promise<PetWithETag>
  /**
   * Reads one animal.
   * @deprecated The service removes getPet on 2030-12-05 (Sunset): use {@link PetsApi.list} with the `status` filter.
   */
  get(petId: number, options?: CallOptions): Promise<PetWithETag>
  /** [beta] Changes an animal with a JSON Merge Patch (RFC 7396); returns it as stored now, with its new ETag. */
  update(petId: number, patch: PetPatch, options?: ConditionalWriteOptions): Promise<PetWithETag>
  /** [beta] Deletes an animal (409 while it has a placed order). */
  remove(petId: number, options?: ConditionalWriteOptions): Promise<void>
}

export function petsApi({ api, transport }: Context): PetsApi {
  const list = async (query: ListPetsQuery = {}, { signal }: CallOptions = {}): Promise<Page<Pet>> => {
    const answer = await api.GET('/pets', {
      params: { query },
      signal,
      fetch: transport.fetchFor({ operationId: 'listPets' }),
    })
    return { items: dataOf(answer), nextCursor: nextLinkParameter(answer.response.headers, 'cursor') }
  }
  return {
    list,
    listAll: (query = {}, options = {}) =>
      everyItem((cursor) => list({ ...query, ...(cursor === undefined ? {} : { cursor }) }, options)),
    async create(pet, { signal, idempotencyKey = newIdempotencyKey() } = {}) {
      const answer = await api.POST('/pets', {
        params: { header: { 'Idempotency-Key': idempotencyKey } },
        body: pet,
        signal,
        fetch: transport.fetchFor({ operationId: 'createPet' }),
      })
      return { pet: dataOf(answer), etag: entityTagOf(answer.response) }
    },
    async get(petId, { signal } = {}) {
      const answer = await api.GET('/pets/{petId}', {
        params: { path: { petId } },
        signal,
        fetch: transport.fetchFor({ operationId: 'getPet' }),
      })
      return { pet: dataOf(answer), etag: entityTagOf(answer.response) }
    },
    async update(petId, patch, { signal, ifMatch, idempotencyKey = newIdempotencyKey() } = {}) {
      const answer = await api.PATCH('/pets/{petId}', {
        params: {
          path: { petId },
          header: { 'Idempotency-Key': idempotencyKey, ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }) },
        },
        body: patch,
        headers: { 'Content-Type': 'application/merge-patch+json' },
        signal,
        fetch: transport.fetchFor({ operationId: 'updatePet' }),
      })
      return { pet: dataOf(answer), etag: entityTagOf(answer.response) }
    },
    async remove(petId, { signal, ifMatch, idempotencyKey = newIdempotencyKey() } = {}) {
      const answer = await api.DELETE('/pets/{petId}', {
        params: {
          path: { petId },
          header: { 'Idempotency-Key': idempotencyKey, ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }) },
        },
        signal,
        fetch: transport.fetchFor({ operationId: 'deletePet' }),
      })
      dataOf(answer)
    },
  }
}
