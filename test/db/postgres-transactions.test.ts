// Write transactions on PostgreSQL send BEGIN with their first statement and hold statements nobody reads back
// (deferUntilCommit: an event's insert) until the next statement or the COMMIT (src/db/postgres-transactions.ts).
// What must not change with the waiting dropped: order, atomicity, and which error the caller sees. A change that
// is one statement, with nothing after it (wholeChange), is sent alone, as a transaction of its own; such changes
// of one turn that say how, as one statement for all of them (src/db/postgres/combined-statements.ts).
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { setTimeout } from 'node:timers/promises'
import { CompiledQuery, sql } from 'kysely'
import type { Writer } from '../../src/db/database.js'
import type { Combinable } from '../../src/db/postgres/combined-statements.js'
import { deferUntilCommit, wholeChange } from '../../src/db/postgres-transactions.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

describe('PostgreSQL write transactions in pipeline mode', () => {
  let server: TestServer

  before(async () => {
    server = await startTestServer()
    await sql`create table scratch (id integer primary key)`.execute(server.store.admin)
  })
  after(() => server.close())
  beforeEach(async () => {
    await sql`delete from scratch`.execute(server.store.admin)
    await sql`insert into scratch (id) values (1)`.execute(server.store.admin)
  })

  const insert = (id: number) => CompiledQuery.raw('insert into scratch (id) values ($1)', [id])
  const stored = async () =>
    (await sql<{ id: number }>`select id from scratch order by id`.execute(server.store.admin)).rows.map(
      (row) => row.id,
    )
  const transaction = <T>(work: (trx: Writer) => Promise<T>) => server.store.transaction(work)

  it('commits a deferred statement with its transaction', async () => {
    await transaction(async (trx) => {
      await trx.executeQuery(insert(2))
      await deferUntilCommit(trx, insert(3))
    })
    assert.deepEqual(await stored(), [1, 2, 3])
  })

  it('does not wait for a deferred statement: it returns at once even when the statement would have to \
wait', async () => {
    let locked!: () => void
    let release!: () => void
    const isLocked = new Promise<void>((resolve) => (locked = resolve))
    const released = new Promise<void>((resolve) => (release = resolve))
    // Another transaction holds the table, so an insert into it waits until that one ends.
    const holder = server.store.admin.transaction().execute(async (other) => {
      await sql`lock table scratch in exclusive mode`.execute(other)
      locked()
      await released
    })
    await isLocked
    const outcome = await transaction(async (trx) => {
      const first = await Promise.race([
        deferUntilCommit(trx, insert(7)).then(() => 'returned'),
        setTimeout(2_000).then(() => 'waited for the lock'),
      ])
      release()
      return first
    })
    await holder
    assert.equal(outcome, 'returned')
    assert.deepEqual(await stored(), [1, 7])
  })

  it('keeps the order statements were issued in: a statement after a deferred one sees its row', async () => {
    const seen = await transaction(async (trx) => {
      await deferUntilCommit(trx, insert(2))
      return (await trx.executeQuery<{ count: number }>(CompiledQuery.raw('select count(*) from scratch'))).rows[0]
    })
    assert.deepEqual(seen, { count: 2 })
  })

  it('runs the first statement inside the transaction that BEGIN, sent with it, opened', async () => {
    await assert.rejects(
      transaction(async (trx) => {
        await trx.executeQuery(insert(2))
        throw new Error('given up')
      }),
      /given up/,
    )
    assert.deepEqual(await stored(), [1])
  })

  it('fails the transaction with the error of a deferred statement that fails, at its commit; nothing \
is committed', async () => {
    await assert.rejects(
      transaction(async (trx) => {
        await trx.executeQuery(insert(2))
        await deferUntilCommit(trx, insert(1))
      }),
      (error: { code?: string }) => error.code === '23505',
    )
    assert.deepEqual(await stored(), [1])
  })

  it('reports the deferred failure, the cause, when a later statement then fails in the aborted \
transaction', async () => {
    await assert.rejects(
      transaction(async (trx) => {
        await deferUntilCommit(trx, insert(1))
        await trx.executeQuery(insert(4))
      }),
      (error: { code?: string }) => error.code === '23505',
    )
    assert.deepEqual(await stored(), [1])
  })

  // VACUUM refuses to run inside a transaction block (25001): it succeeds only if it was sent without BEGIN.
  const vacuum = () => CompiledQuery.raw('vacuum scratch')

  it('sends a whole change alone, without BEGIN and COMMIT, when nothing follows it', async () => {
    await transaction(async (trx) => {
      await wholeChange({ trx, changeEndsTransaction: true }, vacuum())
    })
    const rows = await transaction(async (trx) => {
      const insertReturning = CompiledQuery.raw('insert into scratch (id) values (2) returning id')
      return (await wholeChange<{ id: number }>({ trx, changeEndsTransaction: true }, insertReturning)).rows
    })
    assert.deepEqual(rows, [{ id: 2 }])
    assert.deepEqual(await stored(), [1, 2])
  })

  it('sends a whole change inside the transaction when something may follow it, or something came before', async () => {
    await assert.rejects(
      transaction((trx) => wholeChange({ trx, changeEndsTransaction: false }, vacuum())),
      (error: { code?: string }) => error.code === '25001',
    )
    await assert.rejects(
      transaction(async (trx) => {
        await trx.executeQuery(insert(2))
        await wholeChange({ trx, changeEndsTransaction: true }, insert(1))
      }),
      (error: { code?: string }) => error.code === '23505',
    )
    // The insert before it was taken back with it: they were one transaction.
    assert.deepEqual(await stored(), [1])
  })

  it('commits nothing when a whole change sent alone fails, and refuses a statement after one that \
succeeded', async () => {
    await assert.rejects(
      transaction(async (trx) => {
        await wholeChange({ trx, changeEndsTransaction: true }, insert(1))
      }),
      (error: { code?: string }) => error.code === '23505',
    )
    assert.deepEqual(await stored(), [1])
    await assert.rejects(
      transaction(async (trx) => {
        await wholeChange({ trx, changeEndsTransaction: true }, insert(2))
        await trx.executeQuery(insert(3))
      }),
      /a transaction sent as one statement ran another one/,
    )
    // The misuse is refused before the second statement leaves; the first had committed on its own.
    assert.deepEqual(await stored(), [1, 2])
  })

  it('sends nothing for a statement its work did not wait for, once the transaction has ended, and gives its \
client back', async () => {
    let pending: Promise<unknown> | undefined
    await transaction(async (trx) => {
      pending = trx.executeQuery(insert(2))
    })
    await assert.rejects(pending ?? Promise.resolve(), /a statement was sent after its transaction had ended/)
    // More transactions than the pool has connections: the client checked out too late was given back.
    for (let id = 10; id < 30; id++) await transaction((trx) => trx.executeQuery(insert(id)))
    assert.equal((await stored()).length, 21)
  })

  it('drops what it held back when the work fails, and the connections stay usable', async () => {
    await assert.rejects(
      transaction(async (trx) => {
        await deferUntilCommit(trx, insert(5))
        throw new Error('given up')
      }),
      /given up/,
    )
    assert.deepEqual(await stored(), [1])
    // More transactions than the pool has connections: every one of them was given back in a clean state.
    for (let id = 10; id < 30; id++)
      await transaction(async (trx) => {
        await deferUntilCommit(trx, insert(id))
      })
    assert.equal((await stored()).length, 21)
  })

  describe('whole changes of one turn, combined', () => {
    // The statements tell which way they were sent: each its own, or as the one statement for all of them.
    const insertAlone = (id: number) =>
      CompiledQuery.raw(`insert into scratch (id) values ($1) returning id, 'own' as sent`, [id])
    const insertAll: Combinable = {
      key: 'scratch',
      combine: (parameters) =>
        CompiledQuery.raw(
          `with input as (select * from unnest($1::int[]) with ordinality as input(id, n)),
            inserted as (insert into scratch (id) select id from input order by n returning id)
          select id, 'combined' as sent from inserted join input using (id) order by n`,
          [parameters.map(([id]) => id)],
        ),
    }
    const create = async (id: number) =>
      (
        await transaction((trx) =>
          wholeChange<{ id: number; sent: string }>({ trx, changeEndsTransaction: true }, insertAlone(id), insertAll),
        )
      ).rows

    it('sends the changes of one turn as one statement, each caller getting its own row, more of them than \
the pool has connections', async () => {
      const counted = { ...server.store.combinedStatementStats }
      const ids = Array.from({ length: 25 }, (_, index) => index + 2)
      const rows = await Promise.all(ids.map(create))
      assert.deepEqual(
        rows,
        ids.map((id) => [{ id, sent: 'combined' }]),
      )
      assert.deepEqual(await stored(), [1, ...ids])
      // What /metrics reports (petstore_postgres_combined_statements_total, …_changes_total).
      assert.deepEqual(server.store.combinedStatementStats, {
        statements: (counted.statements ?? 0) + 1,
        changes: (counted.changes ?? 0) + 25,
      })
    })

    it('sends a change alone when it is the only one of its turn', async () => {
      assert.deepEqual(await create(2), [{ id: 2, sent: 'own' }])
      assert.deepEqual(await stored(), [1, 2])
    })

    it('sends each change alone when the combined statement fails: only the change that fails fails', async () => {
      const outcomes = await Promise.allSettled([create(2), create(1), create(3)])
      assert.deepEqual(outcomes[0], { status: 'fulfilled', value: [{ id: 2, sent: 'own' }] })
      assert.equal(outcomes[1].status, 'rejected')
      assert.equal((outcomes[1] as PromiseRejectedResult).reason.code, '23505')
      assert.deepEqual(outcomes[2], { status: 'fulfilled', value: [{ id: 3, sent: 'own' }] })
      assert.deepEqual(await stored(), [1, 2, 3])
    })

    it('sends nothing again when the combined statement fails in a way that leaves unknown whether it \
committed: every caller gets that failure', async () => {
      // The session ends during the statement (FATAL, as when the server stops): its callers cannot know
      // whether it committed, so none of them sends its change again.
      const endingSession: Combinable = {
        key: 'scratch, ending its session',
        combine: (parameters) =>
          CompiledQuery.raw(
            `with inserted as (insert into scratch (id) select unnest($1::int[]) returning id)
            select id, 'combined' as sent from inserted where pg_terminate_backend(pg_backend_pid())`,
            [parameters.map(([id]) => id)],
          ),
      }
      const outcomes = await Promise.allSettled(
        [2, 3].map((id) =>
          transaction((trx) => wholeChange({ trx, changeEndsTransaction: true }, insertAlone(id), endingSession)),
        ),
      )
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status === 'rejected' && outcome.reason.code),
        ['57P01', '57P01'],
      )
      assert.deepEqual(await stored(), [1])
      // The pool gave the broken client up: the next transactions run.
      assert.deepEqual(await create(4), [{ id: 4, sent: 'own' }])
    })

    it('does not combine a change that is not the whole transaction', async () => {
      const rows = await Promise.all(
        [2, 3].map((id) =>
          transaction(
            async (trx) =>
              (await wholeChange<{ sent: string }>({ trx, changeEndsTransaction: false }, insertAlone(id), insertAll))
                .rows,
          ),
        ),
      )
      assert.deepEqual(rows, [[{ id: 2, sent: 'own' }], [{ id: 3, sent: 'own' }]])
    })
  })
})
