import type { Selectable } from 'kysely'
import type { OrderStatus, OrderTable, Reader, Writer } from '../db/database.js'

export type OrderRow = Selectable<OrderTable>
export type { OrderStatus }

export interface NewOrderRow {
  pet_id: number
  quantity: number
  ship_date: string | null
  status: 'placed'
}

export async function insertOrder(trx: Writer, order: NewOrderRow): Promise<OrderRow> {
  return trx.insertInto('orders').values(order).returningAll().executeTakeFirstOrThrow()
}

export async function findOrderById(db: Reader, id: number): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst()
}

export interface OrderPageQuery {
  /** Only orders with a greater id: the keyset cursor. */
  afterId: number | undefined
  limit: number
}

/** Orders in ascending id order, served by the primary key. */
export async function listOrders(db: Reader, query: OrderPageQuery): Promise<OrderRow[]> {
  let select = db.selectFrom('orders').selectAll().orderBy('id').limit(query.limit)
  if (query.afterId !== undefined) select = select.where('id', '>', query.afterId)
  return select.execute()
}

/**
 * Moves an order from one status to another, only if it is still in `from`: the updated row, or undefined when
 * the order does not exist or is no longer in `from`. Of concurrent callers exactly one gets the row.
 */
export async function transitionOrderStatus(
  trx: Writer,
  id: number,
  from: OrderStatus,
  to: OrderStatus,
): Promise<OrderRow | undefined> {
  return trx
    .updateTable('orders')
    .set({ status: to })
    .where('id', '=', id)
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst()
}

/** The id of the pet's placed order, if it has one (at most one: a unique partial index, which serves this query). */
export async function findPlacedOrderIdOfPet(db: Reader, petId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('pet_id', '=', petId)
    .where('status', '=', 'placed')
    .executeTakeFirst()
  return row === undefined ? undefined : Number(row.id)
}
