// The read pipeline (postgres-pipeline.ts) as the pool Kysely's pg driver expects, for the store's reads outside
// transactions.
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'
import type pg from 'pg'
import type { ReadPipeline } from '../postgres-pipeline.js'

/** The read pipeline as the pool Kysely's pg driver expects: every checkout is the pipeline itself. */
export function pipelineAsPool(reads: ReadPipeline): PostgresPool {
  const client = new PipelineClient(reads)
  return { connect: async () => client, end: () => reads.end() }
}

/** Each query of a checkout runs on the pipeline; nothing is held, so there is nothing to release. */
class PipelineClient implements PostgresPoolClient {
  readonly #reads: ReadPipeline

  constructor(reads: ReadPipeline) {
    this.#reads = reads
  }

  query<R>(text: string, values: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>
  query<R>(
    text: string | PostgresCursor<R>,
    values: ReadonlyArray<unknown> = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Kysely asks for a cursor only to stream a query, which the service never does.
    if (typeof text !== 'string') throw new Error('Streaming queries are not supported on the read pipeline.')
    // pg types `command` as any string; for the statements Kysely sends it is one of the tags Kysely names.
    return this.#reads.run(
      (connection) => connection.query<R & pg.QueryResultRow>(text, [...values]) as Promise<PostgresQueryResult<R>>,
    )
  }

  release(): void {}
}
