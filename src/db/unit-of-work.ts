// A write, explicit: one object carries what belongs to the transaction of a change, so that nothing about it
// has to be looked up beside the transaction. The caller opens it (the idempotency wrapper, for the routes),
// services and repositories take it first, and once it has durably committed the events it recorded are
// announced (on SQLite they are readable then, on PostgreSQL they are numbered next).
import type { DataAccess, EventType, Writer } from './database.js'

export interface UnitOfWork {
  /** The transaction: every statement of the change runs in it. */
  readonly trx: Writer
  /** The types of the events recorded so far, in order: what is announced, and counted, at commit. */
  readonly events: EventType[]
  /**
   * Nothing runs in `trx` after the change (no stored answer follows it): on PostgreSQL a change made of one
   * statement is then sent as a transaction of its own, without BEGIN and COMMIT (wholeChange).
   */
  readonly changeEndsTransaction: boolean
  /** Runs `step` once the unit of work has ended, committed or not (waking a worker that reads the change). */
  afterwards(step: () => void): void
}

export interface UnitOfWorkOptions {
  /** See UnitOfWork.changeEndsTransaction. */
  changeEndsTransaction?: boolean
}

/**
 * Runs `work` in one transaction of `data` and resolves once it is durably committed; then announces the events
 * it recorded. Rolls back if `work` throws. The store may run `work` again after a rollback (a stale prepared
 * statement on PostgreSQL): each run gets a fresh unit of work, so only the committed run's events count.
 */
export async function runUnitOfWork<Result>(
  data: DataAccess,
  work: (uow: UnitOfWork) => Promise<Result>,
  { changeEndsTransaction = false }: UnitOfWorkOptions = {},
): Promise<Result> {
  let events: EventType[] = []
  const steps: (() => void)[] = []
  try {
    const result = await data.transaction((trx) => {
      events = []
      return work({ trx, events, changeEndsTransaction, afterwards: (step) => steps.push(step) })
    })
    if (events.length > 0) data.committed?.(events)
    return result
  } finally {
    for (const step of steps) step()
  }
}
