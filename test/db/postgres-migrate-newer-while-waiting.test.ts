// A newer petstore that migrates the database while this one waits for the migrations' lock (instances of both
// versions starting at once during an upgrade, each with MIGRATE_ON_START): this one finds the newer migrations
// once it holds the lock, and runs on the database as on any a newer petstore migrated, rather than failing on
// Kysely's "corrupted migrations".
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { loadConfig } from '../../src/config.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { openStore, type Store } from '../../src/db/store.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

// Kysely's migration lock on PostgreSQL (its PostgresAdapter), a session-level advisory lock.
const KYSELY_MIGRATION_LOCK = '3853314791062309107'
const FUTURE = '9999_future'

describe(
  'a newer petstore migrating while this one waits for the lock',
  { skip: TEST_STORE === 'postgres' ? false : "the lock that makes the wait is PostgreSQL's" },
  () => {
    let database: TestDatabase
    let store: Store
    let newer: pg.Client
    before(async () => {
      database = await createTestDatabase()
      store = openStore(loadConfig({ DATABASE_URL: database.url }))
      await migrateToLatest(store.migrations)
      newer = new pg.Client({ connectionString: database.url })
      await newer.connect()
    })
    after(async () => {
      await newer?.end()
      await store?.close()
      await database?.drop()
    })

    it('finds the newer migrations once it holds the lock, and has nothing to apply', async () => {
      await newer.query(`select pg_advisory_lock(${KYSELY_MIGRATION_LOCK})`)
      let migrating: ReturnType<typeof migrateToLatest> | undefined
      try {
        migrating = migrateToLatest(store.migrations)
        migrating.catch(() => {})
        // Until this petstore waits for the lock the newer one holds.
        for (let look = 0; look < 500; look++) {
          const { rows } = await newer.query<{ waiting: number }>(
            "select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted",
          )
          if ((rows[0]?.waiting ?? 0) > 0) break
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
        await newer.query(`insert into kysely_migration (name, timestamp) values ('${FUTURE}', '2027-01-01')`)
      } finally {
        await newer.query(`select pg_advisory_unlock(${KYSELY_MIGRATION_LOCK})`)
      }
      assert.deepEqual(await migrating, { applied: [], newer: [FUTURE] })
    })
  },
)
