// Which store the suite runs against. `npm test` runs every test file on SQLite, then again on PostgreSQL
// when TEST_DATABASE_URL is set (scripts/test.ts sets PETSTORE_TEST_STORE=postgres for that pass). Each test
// database is private to one test file: a temporary SQLite file, or a PostgreSQL schema created and dropped here.
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import { makeTempDir } from './temp.js'

export type TestStore = 'sqlite' | 'postgres'

export const TEST_STORE: TestStore = process.env.PETSTORE_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite'

export interface TestDatabase {
  /** A DATABASE_URL for the service. */
  url: string
  drop(): Promise<void>
}

function postgresServerUrl(): string {
  const url = process.env.TEST_DATABASE_URL
  if (!url)
    throw new Error(
      'PETSTORE_TEST_STORE=postgres needs TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)',
    )
  return url
}

/** The service's URL for a schema: the schema is selected through the connection's search_path. */
export function urlForSchema(serverUrl: string, schema: string): string {
  const url = new URL(serverUrl)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return url.toString()
}

export async function createTestDatabase(store: TestStore = TEST_STORE): Promise<TestDatabase> {
  if (store === 'sqlite') {
    const directory = makeTempDir()
    return {
      url: `file:${join(directory, 'petstore.db')}`,
      drop: async () => rmSync(directory, { recursive: true, force: true }),
    }
  }
  const serverUrl = postgresServerUrl()
  const schema = `petstore_test_${randomBytes(6).toString('hex')}`
  await runOnPostgresServer(`create schema ${schema}`, serverUrl)
  return {
    url: urlForSchema(serverUrl, schema),
    drop: () => runOnPostgresServer(`drop schema if exists ${schema} cascade`, serverUrl),
  }
}

/**
 * One statement on the test PostgreSQL server (TEST_DATABASE_URL), on a connection of its own: what a test does
 * as the server's administrator (create or drop a database, refuse its connections, end its sessions).
 */
export async function runOnPostgresServer(text: string, serverUrl = postgresServerUrl()): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/**
 * Statements on a test database, in order, on a connection of their own and outside the service: what another
 * program (an earlier or a newer petstore) writes there.
 */
export async function runOnTestDatabase(database: TestDatabase, ...statements: string[]): Promise<void> {
  if (!database.url.startsWith('file:')) {
    for (const statement of statements) await runOnPostgresServer(statement, database.url)
    return
  }
  const handle = new SqliteDatabase(database.url.replace(/^file:/, ''), { fileMustExist: true })
  try {
    for (const statement of statements) handle.exec(statement)
  } finally {
    handle.close()
  }
}

/**
 * A PostgreSQL statement time-out for test servers well above the production default (1.5 s): on a loaded
 * two-core machine a plain read, or the event loop of a test process that also runs the test, is now and then
 * held up past 1.5 s, and a test of something else would then get 503. The tests of what a time-out does
 * (postgres-faults.test.ts) set the production value.
 */
export const PATIENT_DATABASE = { DATABASE_STATEMENT_TIMEOUT_MS: '10000' }
