import { randomBytes } from 'node:crypto'
import type { DbExecutor } from './database.js'

/**
 * A random secret shared by every instance on the same database: created once by whichever instance
 * comes first, then read by all, so a value signed by one instance is accepted by the others.
 */
export async function loadOrCreateSecret(db: DbExecutor, name: string): Promise<Buffer> {
  await db
    .insertInto('service_secrets')
    .values({ name, value: randomBytes(32).toString('hex') })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute()
  const row = await db.selectFrom('service_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow()
  return Buffer.from(row.value, 'hex')
}
