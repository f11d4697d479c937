// Rows straight from a test database, bypassing the service: SQLite opened read-only, or a bare pg client.
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import type { TestDatabase } from './store.js'

/** The rows of `query` (plain SQL, no parameters). PostgreSQL's bigint arrives as text: callers convert. */
export async function storedRows<Row>(database: TestDatabase, query: string): Promise<Row[]> {
  if (database.url.startsWith('file:')) {
    const handle = new SqliteDatabase(database.url.replace(/^file:/, ''), { readonly: true, fileMustExist: true })
    try {
      return handle.prepare(query).all() as Row[]
    } finally {
      handle.close()
    }
  }
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    return (await client.query(query)).rows as Row[]
  } finally {
    await client.end()
  }
}
