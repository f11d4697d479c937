// A store opened as the service opens it, on a fresh test database of its own, for tests of repositories and
// migrations that work on the store without a server.
import { loadConfig } from '../../src/config.js'
import { openStore, type Store } from '../../src/db/store.js'
import { createTestDatabase } from './store.js'

export interface OpenedStore {
  store: Store
  /** Closes the store and drops its database. */
  close(): Promise<void>
}

export async function openTestStore(): Promise<OpenedStore> {
  const database = await createTestDatabase()
  const store = openStore(loadConfig({ DATABASE_URL: database.url }))
  return {
    store,
    async close() {
      await store.close()
      await database.drop()
    },
  }
}
