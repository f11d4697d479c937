// Whole changes of many transactions, one statement each, sent as one statement. A create that is a single
// statement is already a transaction of its own, one round trip (postgres-transactions.ts); under load each of
// them still cost a write to PostgreSQL, a wake-up and a read of the answer on both sides, and a commit with its
// WAL flush. The creates that arrive in one event-loop turn are sent instead as one statement that inserts all
// of their rows: one round trip and one commit for all of them. Each caller is answered once that statement
// has committed. If PostgreSQL answers it with an error, nothing of it committed, and each sends its own
// statement again, alone, and gets its own outcome; any other failure (the connection lost, a time-out) leaves
// unknown whether it committed, and every caller gets that failure, as a statement of its own would have.
import type { CompiledQuery, QueryResult } from 'kysely'
import { statementRefused } from '../postgres-statements.js'

/** A statement many transactions may each make (one row each) that can be made for all of them at once. */
export interface Combinable {
  /** Statements with the same key combine. */
  readonly key: string
  /**
   * One statement doing what the statements with these parameters would, each member's in order; it returns
   * one row for each member, in the members' order.
   */
  combine(parameters: ReadonlyArray<readonly unknown[]>): CompiledQuery
}

type Send = (query: CompiledQuery) => Promise<QueryResult<unknown>>

interface Member {
  query: CompiledQuery
  send: Send
  resolve(result: QueryResult<unknown>): void
  reject(error: unknown): void
}

/** Counts since start: combined statements sent, and the changes they carried. */
export interface CombinedStatementStats {
  statements: number
  changes: number
}

/** The statements waiting to be combined, per key; one per store (its driver), never shared between stores. */
export class StatementGroups {
  readonly #open = new Map<string, Member[]>()
  readonly stats: CombinedStatementStats = { statements: 0, changes: 0 }

  /**
   * Sends `query` (marked `combinable`) with the others of this turn that have the same key, over `send` (a
   * connection that runs it as a transaction of its own); resolves with this member's row.
   */
  add<R>(query: CompiledQuery, combinable: Combinable, send: Send): Promise<QueryResult<R>> {
    let members = this.#open.get(combinable.key)
    if (!members) {
      const group: Member[] = []
      members = group
      this.#open.set(combinable.key, group)
      // In the check phase: every request read in this turn has made its statement by then.
      setImmediate(() => {
        this.#open.delete(combinable.key)
        void sendGroup(group, combinable, this.stats)
      })
    }
    const group = members
    return new Promise<QueryResult<unknown>>((resolve, reject) =>
      group.push({ query, send, resolve, reject }),
    ) as Promise<QueryResult<R>>
  }
}

async function sendGroup(members: Member[], combinable: Combinable, stats: CombinedStatementStats): Promise<void> {
  const [leader] = members
  if (!leader) return
  if (members.length === 1) return sendAlone(leader)
  let rows: unknown[]
  try {
    ;({ rows } = await leader.send(combinable.combine(members.map((member) => member.query.parameters))))
  } catch (error) {
    // Refused for a value one member brought, say: each member's own statement decides its outcome.
    if (statementRefused(error)) await Promise.all(members.map(sendAlone))
    else for (const member of members) member.reject(error)
    return
  }
  if (rows.length !== members.length) {
    const error = new Error(`a combined statement returned ${rows.length} rows for ${members.length} members`)
    for (const member of members) member.reject(error)
    return
  }
  stats.statements++
  stats.changes += members.length
  members.forEach((member, index) => member.resolve({ rows: [rows[index]] }))
}

function sendAlone(member: Member): Promise<void> {
  return member.send(member.query).then(member.resolve, member.reject)
}
