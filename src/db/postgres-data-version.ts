import type { CompiledQuery } from 'kysely'
import type pg from 'pg'
import type { ReadPipeline } from './postgres-pipeline.js'
import { readRemoteVersionPerTurn } from './read-version-per-turn.js'

/**
 * The sum of the data_version rows (migrations/0006_data_version.ts): it grows with every committed write
 * to pets, orders or api_keys, from any instance or tool. Named, so that it is planned once per connection.
 */
const DATA_VERSION: pg.QueryArrayConfig = {
  name: 'petstore_data_version',
  text: 'select sum(version)::bigint from data_version',
  rowMode: 'array',
}

function versionOf({ rows }: pg.QueryArrayResult<[number]>): number {
  const version = rows[0]?.[0]
  if (typeof version !== 'number')
    throw new Error('the data_version table is empty: has migration 0006_data_version run?')
  return version
}

/**
 * PostgreSQL's data version for caches of reads, read once per event-loop turn (one query for every request
 * of the turn, never one taken before a request arrived). A read after a commit acknowledged anywhere
 * therefore sees a new version, and a cached answer is dropped as soon as a fresh query could differ.
 */
export function readPostgresDataVersion(reads: () => Promise<ReadPipeline>): () => Promise<number> {
  return readRemoteVersionPerTurn(async () =>
    versionOf(await (await reads()).run((client) => client.query<[number]>(DATA_VERSION))),
  )
}

/**
 * Rows of a query and, when asked for, the data version read just before it (VersionedCache.getFresh); without
 * it, only the query is sent, and the version is undefined.
 */
export type ReadWithVersion = <Row>(
  query: CompiledQuery<Row>,
  withVersion: boolean,
) => Promise<{ rows: Row[]; version: number | undefined }>

/**
 * Runs a read with the data version read before it, in one round trip: both statements go on the same
 * pipelined connection in the same write, the version first. PostgreSQL runs a connection's statements in
 * order, each in a snapshot of its own (read committed), so the query's snapshot is at least as new as the
 * version's: its rows are those of that version or of a newer one, never of an older one.
 */
export function readWithPostgresDataVersion(reads: () => Promise<ReadPipeline>): ReadWithVersion {
  return async <Row>(query: CompiledQuery<Row>, withVersion: boolean) =>
    (await reads()).run(async (client) => {
      const version = withVersion ? client.query<[number]>(DATA_VERSION) : undefined
      const result = client.query<Row & pg.QueryResultRow>(query.sql, [...query.parameters])
      // Both awaited together: a failure of either is handled, and the answer waits for both.
      const [versionResult, { rows }] = await Promise.all([version, result])
      return { rows, version: versionResult && versionOf(versionResult) }
    })
}
