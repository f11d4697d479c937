// Stores for the benchmark: created, migrated with `petstore migrate` (the service's own migrations), then
// filled directly, never through HTTP: a million pets in seconds. SQLite: one transaction, one prepared
// statement. PostgreSQL: one `insert … select … from generate_series`, in a schema of its own.
//
// Also a command: tsx bench/seed.ts --database file:PATH|postgres://… --pets N
import { randomBytes } from 'node:crypto'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { pathToFileURL } from 'node:url'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import { CLI, runToCompletion } from './processes.js'
import { petAt } from './pets-data.js'

export interface BenchStore {
  kind: 'sqlite' | 'postgres'
  /** What the service is given as DATABASE_URL. */
  databaseUrl: string
  /** The SQLite file, for the reference servers; undefined on PostgreSQL. */
  sqlitePath: string | undefined
  /** Adds pets until `total` exist. On a fresh store pet n gets id n, which the scenarios rely on. */
  seedTo(total: number): Promise<{ added: number; milliseconds: number }>
  /** A row of service_secrets (created by the service when it first starts). */
  readSecret(name: string): Promise<Buffer | undefined>
  drop(): Promise<void>
}

export async function migrate(databaseUrl: string, cli = CLI): Promise<void> {
  await runToCompletion([cli, 'migrate'], { DATABASE_URL: databaseUrl })
}

export function sqliteStore(path: string): BenchStore {
  return {
    kind: 'sqlite',
    databaseUrl: `file:${path}`,
    sqlitePath: path,
    async seedTo(total) {
      const started = performance.now()
      const database = new SqliteDatabase(path)
      try {
        // The seed itself need not survive a power cut: no fsync per page while loading.
        database.pragma('synchronous = OFF')
        const existing =
          database.prepare<[], { last: number | null }>('select max(id) as last from pets').get()?.last ?? 0
        const insert = database.prepare<[string, number, string]>(
          'insert into pets (name, category_id, status) values (?, ?, ?)',
        )
        database.transaction(() => {
          for (let position = existing + 1; position <= total; position++) {
            const pet = petAt(position)
            insert.run(pet.name, pet.categoryId, pet.status)
          }
        })()
        const last = database.prepare<[], { last: number | null }>('select max(id) as last from pets').get()?.last ?? 0
        if (last !== total) throw new Error(`seeding ended at id ${last}, not ${total}: the store was not fresh`)
        database.pragma('wal_checkpoint(TRUNCATE)')
        return { added: Math.max(0, total - existing), milliseconds: performance.now() - started }
      } finally {
        database.close()
      }
    },
    async readSecret(name) {
      const database = new SqliteDatabase(path, { readonly: true })
      try {
        const row = database
          .prepare<[string], { value: string }>('select value from service_secrets where name = ?')
          .get(name)
        return row ? Buffer.from(row.value, 'hex') : undefined
      } finally {
        database.close()
      }
    },
    async drop() {
      // The file lives in the run's temporary directory, removed with it.
    },
  }
}

/** The schema is chosen through the connection's search_path, as the service's PostgreSQL tests do. */
function urlForSchema(serverUrl: string, schema: string): string {
  const url = new URL(serverUrl)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return url.toString()
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

function postgresStore(databaseUrl: string, drop: () => Promise<void>): BenchStore {
  return {
    kind: 'postgres',
    databaseUrl,
    sqlitePath: undefined,
    async seedTo(total) {
      const started = performance.now()
      // Must produce exactly what petAt() describes.
      const result = await withClient(databaseUrl, async (client) => {
        const { rows } = await client.query<{ last: string | null }>('select max(id) as last from pets')
        const existing = Number(rows[0]?.last ?? 0)
        await client.query(
          `
          insert into pets (name, category_id, status)
          select (array['Rex','Bella','Max','Luna','Charlie','Daisy','Milo','Coco','Rocky','Nala'])[n % 10 + 1]
                   || ' ' || n,
                 n % 50 + 1,
                 case when n % 10 = 6 then 'pending' when n % 10 >= 7 then 'sold' else 'available' end
          from generate_series($1::bigint, $2::bigint) as n`,
          [existing + 1, total],
        )
        // Autovacuum would gather statistics soon after such a load in production; the plans should not wait.
        await client.query('analyze pets')
        return { added: Math.max(0, total - existing) }
      })
      return { ...result, milliseconds: performance.now() - started }
    },
    async readSecret(name) {
      return withClient(databaseUrl, async (client) => {
        const { rows } = await client.query<{ value: string }>('select value from service_secrets where name = $1', [
          name,
        ])
        return rows[0] ? Buffer.from(rows[0].value, 'hex') : undefined
      })
    },
    drop,
  }
}

export async function freshPostgresStore(serverUrl: string): Promise<BenchStore> {
  const schema = `petstore_bench_${randomBytes(6).toString('hex')}`
  await withClient(serverUrl, (client) => client.query(`create schema ${schema}`))
  return postgresStore(urlForSchema(serverUrl, schema), async () => {
    await withClient(serverUrl, (client) => client.query(`drop schema if exists ${schema} cascade`))
  })
}

/**
 * A fresh store, migrated by `cli` (another build's, for --before): a SQLite file named `name` in `directory`, or
 * a new schema on the PostgreSQL server.
 */
export async function createStore(options: {
  directory: string
  name: string
  postgresUrl: string | undefined
  cli?: string
}): Promise<BenchStore> {
  const store = options.postgresUrl
    ? await freshPostgresStore(options.postgresUrl)
    : sqliteStore(join(options.directory, `${options.name}.db`))
  await migrate(store.databaseUrl, options.cli)
  return store
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { database: { type: 'string' }, pets: { type: 'string', default: '1000000' } },
    strict: true,
  })
  const total = Number(values.pets)
  const database = values.database ?? ''
  const sqlitePath = /^(?:file|sqlite):(.+)$/.exec(database)?.[1]
  if (!Number.isSafeInteger(total) || total < 1 || (!sqlitePath && !/^postgres(?:ql)?:\/\//.test(database))) {
    throw new Error(
      'usage: tsx bench/seed.ts --database file:PATH|postgres://… --pets N (PostgreSQL: the schema given by ' +
        'search_path)',
    )
  }
  const url = sqlitePath ? `file:${resolve(sqlitePath)}` : database
  await migrate(url)
  // An existing database (or the schema its search_path names), seeded in place and kept.
  const store = sqlitePath ? sqliteStore(resolve(sqlitePath)) : postgresStore(database, async () => {})
  const { added, milliseconds } = await store.seedTo(total)
  console.log(`Added ${added} pets (now ${total}) in ${(milliseconds / 1000).toFixed(1)} s.`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
