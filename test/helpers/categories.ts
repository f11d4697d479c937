// Requests and expected bodies shared by the category tests.
import assert from 'node:assert/strict'
import type { TestServer } from './server.js'

export interface Category {
  id: number
  name: string
}

export const categoryPath = (id: number) => `/v1/categories/${id}`

/** POST /v1/categories; asserts 201 and returns the category with its ETag. */
export async function createCategory(server: TestServer, name: string): Promise<Category & { etag: string }> {
  const response = await server.request('/v1/categories', { json: { name } })
  const body = await response.json()
  assert.equal(response.status, 201, JSON.stringify(body))
  const etag = response.headers.get('etag')
  assert.ok(etag)
  return { ...body, etag }
}

export function putCategory(
  server: TestServer,
  id: number,
  name: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return server.request(categoryPath(id), { method: 'PUT', json: { name }, headers })
}

export function deleteCategory(
  server: TestServer,
  id: number,
  headers: Record<string, string> = {},
): Promise<Response> {
  return server.request(categoryPath(id), { method: 'DELETE', headers })
}

export const categoryNotFound = (id: number) => ({
  status: 404,
  code: 'not_found',
  message: `No category has id ${id}.`,
})

export const nameTaken = (holder: Category) => ({
  status: 409,
  code: 'conflict',
  message: `Category ${holder.id} is named "${holder.name}": names are unique ignoring case. Nothing was changed.`,
})
