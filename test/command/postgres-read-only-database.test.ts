// A DATABASE_URL naming a PostgreSQL server that accepts no writes (a standby, or default_transaction_read_only set
// in it): connecting and reading work, so every command that writes fails at its first write. It says so in one
// line naming the database, DATABASE_URL and the fix, rather than in PostgreSQL's own words, which name neither.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { runCli } from '../helpers/process.js'
import { startTestServer } from '../helpers/server.js'
import { addPet } from '../helpers/orders.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

/** The URL with default_transaction_read_only added to its options, as a standby's connections are. */
function readOnly(url: string): string {
  const parsed = new URL(url)
  parsed.searchParams.set('options', `${parsed.searchParams.get('options') ?? ''} -c default_transaction_read_only=on`)
  return parsed.toString()
}

/** The line naming the database, as every command prints it first, and the refusal that follows it. */
function refusal(url: string, statement: string): string {
  const parsed = new URL(url)
  const schema = /search_path=(\S+)/.exec(parsed.searchParams.get('options') ?? '')?.[1] ?? ''
  const address = `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`
  const database = `PostgreSQL database ${address} (search_path ${schema})`
  return (
    `petstore: the ${database} (DATABASE_URL) accepts no writes (cannot execute ${statement} in a read-only ` +
    'transaction): DATABASE_URL names a read-only server, such as a standby, or sets ' +
    'default_transaction_read_only; point it at the primary\n'
  )
}

describe('a PostgreSQL database that accepts no writes', () => {
  let migrated: TestDatabase
  let empty: TestDatabase
  before(async () => {
    migrated = await createTestDatabase('postgres')
    empty = await createTestDatabase('postgres')
    assert.equal((await runCli(['migrate'], { DATABASE_URL: migrated.url })).code, 0)
  })
  after(async () => {
    await migrated.drop()
    await empty.drop()
  })

  it('petstore keys create: exit 1, the database named and how to point DATABASE_URL at a writable one', async () => {
    const url = readOnly(migrated.url)
    const result = await runCli(['keys', 'create', '--name', 'standby'], { DATABASE_URL: url })
    const [using, ...rest] = result.stderr.split('\n')
    assert.match(using ?? '', /^petstore: using PostgreSQL database /)
    assert.deepEqual(
      { code: result.code, stdout: result.stdout, refusal: rest.join('\n') },
      { code: 1, stdout: '', refusal: refusal(url, 'INSERT') },
    )
  })

  it('petstore migrate of an empty schema: the same, for its first table', async () => {
    const url = readOnly(empty.url)
    const result = await runCli(['migrate'], { DATABASE_URL: url })
    const [, ...rest] = result.stderr.split('\n')
    assert.deepEqual(
      { code: result.code, stdout: result.stdout, refusal: rest.join('\n') },
      { code: 1, stdout: '', refusal: refusal(url, 'CREATE TABLE') },
    )
  })

  it('petstore serve: exit 1 before listening, with the same line', async () => {
    const url = readOnly(migrated.url)
    const result = await runCli(['serve'], { DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1' })
    assert.deepEqual(result, { code: 1, stdout: '', stderr: refusal(url, 'INSERT') })
  })
})

describe('a running service whose PostgreSQL server stops accepting writes', () => {
  it('answers a write 503 unavailable with Retry-After, as during a failover, not 500', async () => {
    const server = await startTestServer()
    try {
      // What a standby (or a demoted primary) answers every write with, for the one table this test writes.
      await sql
        .raw(
          `create function refuse_writes() returns trigger language plpgsql as $$ begin raise exception ` +
            `'cannot execute INSERT in a read-only transaction' using errcode = '25006'; end $$; ` +
            'create trigger refuse_writes before insert on pets for each row execute function refuse_writes()',
        )
        .execute(server.store.admin)
      const response = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
      assert.deepEqual(
        { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() },
        {
          status: 503,
          retryAfter: '1',
          body: {
            code: 'unavailable',
            message: 'The database cannot be reached right now; retry the request.',
            status: 503,
          },
        },
      )
    } finally {
      await server.close()
    }
  })

  it('opens a new connection after one refused a write: writes succeed again once the primary is back', async () => {
    const server = await startTestServer()
    try {
      await addPet(server)
      // Every connection open now is "on the standby": it refuses writes for as long as it lives, as a connection
      // opened to a standby during a failover does once the new primary has taken the address. Connections opened
      // later reach the primary.
      await sql
        .raw(
          'create table standby_backends as select pid from pg_stat_activity where datname = current_database(); ' +
            `create function refuse_writes() returns trigger language plpgsql as $$ begin if pg_backend_pid() in ` +
            `(select pid from standby_backends) then raise exception 'cannot execute INSERT in a read-only ` +
            `transaction' using errcode = '25006'; end if; return new; end $$; ` +
            'create trigger refuse_writes before insert on pets for each row execute function refuse_writes()',
        )
        .execute(server.store.admin)
      const { rows } = await sql<{ count: number }>`select count(*)::int as count from standby_backends`.execute(
        server.store.admin,
      )
      const standby = rows[0]?.count ?? 0
      // Each refused write gives up its connection; at most one per connection on the standby is refused. Before,
      // the connections went back to the pool and every write was refused, whatever the number of tries.
      const statuses: number[] = []
      for (let attempt = 0; attempt <= standby && statuses.at(-1) !== 201; attempt++) {
        const response = await server.request('/v1/pets', { json: { name: 'Tom', categoryId: 1 } })
        const body = (await response.json()) as { name?: string; code?: string }
        statuses.push(response.status)
        if (response.status === 503) assert.equal(body.code, 'unavailable')
        else assert.deepEqual([response.status, body.name], [201, 'Tom'])
      }
      assert.equal(statuses.at(-1), 201, `statuses ${statuses.join(', ')} with ${standby} connections on the standby`)
      assert.ok(statuses.slice(0, -1).every((status) => status === 503))
    } finally {
      await server.close()
    }
  })
})
