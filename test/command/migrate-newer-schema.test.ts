// A database a newer petstore migrated (an upgrade under way, or rolled back): this petstore's `migrate` has
// nothing to apply and says so, and `serve` starts on it with a warning, with or without migrations on start, as
// an earlier version's instances keep running during an upgrade. A database that holds a newer petstore's
// migrations but lacks one of this petstore's is refused with both named.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { describeDatabase } from '../../src/db/database-errors.js'
import { migrations } from '../../src/db/migrate.js'
import { runCli, spawnServer } from '../helpers/process.js'
import { createTestDatabase, runOnTestDatabase, type TestDatabase } from '../helpers/store.js'

const FUTURE = '9999_future'
const LAST = Object.keys(migrations).at(-1) ?? ''

describe('a database a newer petstore migrated', () => {
  let database: TestDatabase
  let described: string
  before(async () => {
    database = await createTestDatabase()
    described = describeDatabase(loadConfig({ DATABASE_URL: database.url }).database)
    const first = await runCli(['migrate'], { DATABASE_URL: database.url })
    assert.equal(first.code, 0, first.stderr)
    await runOnTestDatabase(
      database,
      `insert into kysely_migration (name, timestamp) values ('${FUTURE}', '2027-01-01')`,
    )
  })
  after(() => database?.drop())

  it('has nothing to apply for this petstore, and says the database is ahead', async () => {
    assert.deepEqual(await runCli(['migrate'], { DATABASE_URL: database.url }), {
      code: 0,
      stdout:
        `The ${described} holds every migration of this petstore and 1 of a newer one (${FUTURE}): ` +
        'nothing to apply.\n',
      stderr: `petstore: using ${described}\n`,
    })
  })

  for (const migrateOnStart of ['true', 'false'])
    it(`is served, with a warning naming the newer migrations (MIGRATE_ON_START=${migrateOnStart})`, async () => {
      const server = await spawnServer({ DATABASE_URL: database.url, MIGRATE_ON_START: migrateOnStart })
      try {
        const ready = await fetch(`${server.baseUrl}/readyz`)
        assert.equal(ready.status, 200)
        const warnings = server
          .output()
          .split('\n')
          .filter((line) => line.includes('newerMigrations'))
          .map((line) => JSON.parse(line) as { level: number; msg: string; newerMigrations: string[] })
        assert.deepEqual(
          warnings.map(({ level, msg, newerMigrations }) => ({ level, msg, newerMigrations })),
          [
            {
              level: 40,
              msg:
                'the database holds migrations of a newer petstore: this version runs on it as it does during an ' +
                'upgrade; finish the upgrade or roll back',
              newerMigrations: [FUTURE],
            },
          ],
        )
      } finally {
        server.child.kill('SIGTERM')
        assert.equal(await server.exited, 0)
      }
    })

  it("is refused when it also lacks one of this petstore's migrations, naming both", async () => {
    await runOnTestDatabase(database, `delete from kysely_migration where name = '${LAST}'`)
    const result = await runCli(['migrate'], { DATABASE_URL: database.url })
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.equal(
      result.stderr,
      `petstore: using ${described}\npetstore: the database holds migrations this petstore does not know ` +
        `(${FUTURE}) and lacks some of its own (${LAST}): it was migrated by another build; migrate it with the ` +
        'newest petstore\n',
    )
  })

  it('is refused by serve without migrations on start the same way, naming both', async () => {
    const result = await runCli(['serve'], {
      DATABASE_URL: database.url,
      MIGRATE_ON_START: 'false',
      HOST: '127.0.0.1',
      PORT: '0',
    })
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.equal(
      result.stderr.split('\n').at(-2),
      `petstore: the database holds migrations this petstore does not know (${FUTURE}) and lacks some of its own ` +
        `(${LAST}): it was migrated by another build; migrate it with the newest petstore`,
    )
  })
})
