import { randomBytes } from 'node:crypto'
import type { DataAccess, Reader } from './database.js'

/**
 * A random secret shared by every instance on the same database: created once by whichever instance
 * comes first, then read by all, so a value signed by one instance is accepted by the others.
 */
export async function loadOrCreateSecret(data: DataAccess, name: string): Promise<Buffer> {
  const row = await data.transaction(async (trx) => {
    await trx
      .insertInto('service_secrets')
      .values({ name, value: randomBytes(32).toString('hex') })
      .onConflict((conflict) => conflict.column('name').doNothing())
      .execute()
    return trx.selectFrom('service_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow()
  })
  return Buffer.from(row.value, 'hex')
}

/** A shared secret, if one was created under this name; never creates one. */
export async function findSecret(db: Reader, name: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom('service_secrets').select('value').where('name', '=', name).executeTakeFirst()
  return row && Buffer.from(row.value, 'hex')
}
