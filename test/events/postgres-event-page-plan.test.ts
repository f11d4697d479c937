// PostgreSQL: a read of the feed is planned as the small indexed read it is. event_retention holds one row, but
// autovacuum analyzes a table only after 50 changes, so on a new or restored database the planner takes it for
// thousands of rows; joined to a page of 1000 events (a stream's read, the hub's), the estimate then passed
// jit_above_cost, and with JIT on (PostgreSQL's default) every such read compiled itself first: tens of
// milliseconds each, and a burst of streams opening at once was answered 503.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { KyselyPlugin, RootOperationNode } from 'kysely'
import pg from 'pg'
import { readEventPage } from '../../src/events/event.repository.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

describe('the plan of a read of the feed on postgres', () => {
  let database: TestDatabase
  let server: TestServer
  let client: pg.Client
  before(async () => {
    database = await createTestDatabase()
    server = await startTestServer({ database })
    client = new pg.Client({ connectionString: database.url })
    await client.connect()
  })
  after(async () => {
    await client.end()
    await server.close()
    await database.drop()
  })

  /** The statement readEventPage sends, with its parameters. */
  const statementOf = async (query: Parameters<typeof readEventPage>[1]) => {
    let node: RootOperationNode | undefined
    const capture: KyselyPlugin = {
      transformQuery: (args) => (node = args.node),
      transformResult: async (args) => args.result,
    }
    await readEventPage(server.store.admin.withPlugin(capture), query)
    assert.ok(node)
    return server.store.admin.getExecutor().compileQuery(node, { queryId: 'feed-page' })
  }

  const plannedCost = async (query: Parameters<typeof readEventPage>[1]) => {
    const { sql, parameters } = await statementOf(query)
    const values = parameters.map((value) =>
      typeof value === 'number' ? String(value) : client.escapeLiteral(String(value)),
    )
    await client.query('deallocate all')
    await client.query(`prepare feed_page as ${sql}`)
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: { 'Total Cost': number } }] }>(
      `explain (format json) execute feed_page(${values.join(', ')})`,
    )
    return rows[0]?.['QUERY PLAN'][0].Plan['Total Cost'] ?? Infinity
  }

  it('costs less than the JIT threshold, with and without a type filter, on a database never analyzed', async () => {
    const created = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
    assert.equal(created.status, 201)
    const { rows } = await client.query<{ threshold: string; analyzed: boolean }>(
      `select current_setting('jit_above_cost') as threshold, exists (select 1 from pg_stat_user_tables
        where relname = 'event_retention' and schemaname = current_schema()
          and (last_analyze is not null or last_autoanalyze is not null)) as analyzed`,
    )
    assert.equal(rows[0]?.analyzed, false)
    const threshold = Number(rows[0]?.threshold)
    for (const types of [undefined, ['pet.created' as const]]) {
      const cost = await plannedCost({ after: 0, limit: 1000, types, scanLimit: types ? 10_000 : 1000 })
      assert.ok(cost < threshold / 10, `types ${String(types)}: planned cost ${cost}, JIT from ${threshold}`)
    }
  })
})
