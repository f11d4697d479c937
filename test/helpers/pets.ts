// Steps the catalogue maintenance tests repeat: PATCH and DELETE of a pet, and the pet's row as stored.
import type { TestServer } from './server.js'

export const MERGE_PATCH = 'application/merge-patch+json'

/** What a refused name (an animal's or a category's) is told: the rule in words, not the pattern behind it. */
export const VISIBLE_NAME_RULE =
  'must contain a visible character, and no control characters, unpaired surrogates or bidirectional override ' +
  'and isolate characters (U+202A–U+202E, U+2066–U+2069)'

/** PATCH /v1/pets/{id} with a merge patch (the body sent as given when it is a string). */
export function patchPet(
  server: TestServer,
  id: number | string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return server.request(`/v1/pets/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': MERGE_PATCH, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

export function deletePet(
  server: TestServer,
  id: number | string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return server.request(`/v1/pets/${id}`, { method: 'DELETE', headers })
}

export interface StoredPet {
  id: number
  name: string
  categoryId: number
  status: string
  version: number
  deleted: boolean
}

/** The pet's row straight from the database, deleted or not: what a refusal must have left unchanged. */
export async function storedPet(server: TestServer, id: number): Promise<StoredPet | undefined> {
  const row = await server.store.admin.selectFrom('pets').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) return undefined
  return {
    id: Number(row.id),
    name: row.name,
    categoryId: Number(row.category_id),
    status: row.status,
    version: Number(row.version),
    deleted: row.deleted_at !== null,
  }
}

/** The strong ETag the service gives pet `id` at `version`. */
export const etagOf = (id: number, version: number) => `"${id}.${version}"`
