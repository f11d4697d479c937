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

/**
 * PostgreSQL's data version for caches of reads, read once per event-loop turn (one query for every request
 * of the turn, never one taken before a request arrived). A read after a commit acknowledged anywhere
 * therefore sees a new version, and a cached answer is dropped as soon as a fresh query could differ.
 */
export function readPostgresDataVersion(reads: () => Promise<ReadPipeline>): () => Promise<number> {
  return readRemoteVersionPerTurn(async () => {
    const { rows } = await (await reads()).run((client) => client.query<[number]>(DATA_VERSION))
    const version = rows[0]?.[0]
    if (typeof version !== 'number')
      throw new Error('the data_version table is empty: has migration 0006_data_version run?')
    return version
  })
}
