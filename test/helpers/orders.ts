// Steps the order tests repeat: adding a pet, placing an order, reading back the state of both.
import assert from 'node:assert/strict'
import { collectPages } from './link.js'
import type { TestServer } from './server.js'

export interface Pet {
  id: number
  name: string
  categoryId: number
  status: 'available' | 'pending' | 'sold'
}
export interface Order {
  id: number
  petId: number
  quantity: number
  shipDate: string | null
  complete: boolean
  status: 'placed' | 'completed' | 'cancelled'
}

export async function addPet(server: TestServer, status: Pet['status'] = 'available', name = 'Rex'): Promise<Pet> {
  const response = await server.request('/v1/pets', { json: { name, categoryId: 1, status } })
  assert.equal(response.status, 201)
  return response.json()
}

/** Places an order that must succeed (201) and returns it. */
export async function placeOrder(server: TestServer, body: Record<string, unknown>): Promise<Order> {
  const response = await server.request('/v1/store/orders', { json: body })
  assert.equal(response.status, 201, await response.clone().text())
  return response.json()
}

/** Cancels (DELETE) or completes an order that must succeed (200) and returns it. */
export async function finishOrder(server: TestServer, orderId: number, action: 'cancel' | 'complete'): Promise<Order> {
  const response =
    action === 'cancel'
      ? await server.request(`/v1/store/orders/${orderId}`, { method: 'DELETE' })
      : await server.request(`/v1/store/orders/${orderId}/complete`, { method: 'POST' })
  assert.equal(response.status, 200, await response.clone().text())
  return response.json()
}

export function cancelRequest(server: TestServer, orderId: number): Promise<Response> {
  return server.request(`/v1/store/orders/${orderId}`, { method: 'DELETE' })
}

export function completeRequest(server: TestServer, orderId: number): Promise<Response> {
  return server.request(`/v1/store/orders/${orderId}/complete`, { method: 'POST' })
}

/** The pet as GET /v1/pets/{id} answers it now. */
export async function readPet(server: TestServer, id: number): Promise<Pet> {
  const response = await server.request(`/v1/pets/${id}`)
  assert.equal(response.status, 200)
  return response.json()
}

/** The order as GET /v1/store/orders/{id} answers it now. */
export async function readOrder(server: TestServer, id: number): Promise<Order> {
  const response = await server.request(`/v1/store/orders/${id}`)
  assert.equal(response.status, 200)
  return response.json()
}

/** Every order, walking the pages of GET /v1/store/orders. */
export async function listAllOrders(server: TestServer): Promise<Order[]> {
  return collectPages<Order>((path) => server.request(path), '/v1/store/orders?limit=100')
}

/** The rows of the orders table for a pet, straight from the database. */
export async function storedOrdersOf(server: TestServer, petId: number): Promise<{ id: number; status: string }[]> {
  const rows = await server.store.admin
    .selectFrom('orders')
    .select(['id', 'status'])
    .where('pet_id', '=', petId)
    .orderBy('id')
    .execute()
  return rows.map((row) => ({ id: Number(row.id), status: row.status }))
}

export async function storedOrderCount(server: TestServer): Promise<number> {
  const row = await server.store.admin
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * The pet status that the pet's orders imply: pending while one is placed, sold once one is completed, and
 * otherwise the status it was created with. A pet in any other state is one no valid sequence could reach.
 */
export function impliedPetStatus(created: Pet['status'], orders: { status: string }[]): Pet['status'] {
  const placed = orders.filter((order) => order.status === 'placed').length
  const completed = orders.filter((order) => order.status === 'completed').length
  assert.ok(placed + completed <= 1, `a pet has ${placed} placed and ${completed} completed orders`)
  if (placed === 1) return 'pending'
  if (completed === 1) return 'sold'
  return created
}
