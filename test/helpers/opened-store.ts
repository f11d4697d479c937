// A store opened as the service opens it, on a fresh test database of its own, for tests of repositories and
// migrations that work on the store without a server.
import { loadConfig } from '../../src/config.js'
import { openStore, type Store } from '../../src/db/store.js'
import { createTestDatabase } from './store.js'

export interface OpenedStore {
  store: Store
  /** The database's URL, for a connection of the test's own. */
  url: string
  /** Closes the store and drops its database. */
  close(): Promise<void>
}

/** `settings`: variables the store is opened with beside DATABASE_URL (DATABASE_STATEMENT_TIMEOUT_MS). */
export async function openTestStore(settings: Record<string, string> = {}): Promise<OpenedStore> {
  const database = await createTestDatabase()
  const store = openStore(loadConfig({ ...settings, DATABASE_URL: database.url }))
  return {
    store,
    url: database.url,
    async close() {
      await store.close()
      await database.drop()
    },
  }
}
