import type { DataAccess, InTransaction, Writer } from './database.js'
import { changeEndsTransaction } from './postgres-transactions.js'

/** A service's change and the caller's `inTransaction` work (an idempotent request's stored response), in one durable transaction. */
export function writeWith<Result>(
  data: DataAccess,
  change: (trx: Writer) => Promise<Result>,
  inTransaction: InTransaction<Result> | undefined,
): Promise<Result> {
  return data.transaction(async (trx) => {
    if (!inTransaction) changeEndsTransaction(trx)
    const result = await change(trx)
    await inTransaction?.(trx, result)
    return result
  })
}
