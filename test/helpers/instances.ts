// Several `petstore serve` processes on one database, migrated once before they start, as in production.
import assert from 'node:assert/strict'
import { after, before } from 'node:test'
import type { Tuning } from '../../src/config/tuning.js'
import { runCli, spawnServer, type ServerProcess } from './process.js'
import { createTestDatabase, type TestDatabase } from './store.js'

export async function startInstances(
  database: TestDatabase,
  env: Record<string, string>,
  count = 2,
  tuning?: Partial<Tuning>,
): Promise<ServerProcess[]> {
  const shared = { DATABASE_URL: database.url, ...env }
  const migrated = await runCli(['migrate'], shared)
  assert.equal(migrated.code, 0, migrated.stderr)
  return Promise.all(Array.from({ length: count }, () => spawnServer({ ...shared, MIGRATE_ON_START: 'false' }, tuning)))
}

/** SIGTERM to each; each must exit 0. */
export async function stopInstances(instances: readonly ServerProcess[]): Promise<void> {
  for (const instance of instances) {
    instance.child.kill('SIGTERM')
    assert.equal(await instance.exited, 0, instance.output())
  }
}

/**
 * For the tests of one describe: a fresh database and `count` instances on it, started before them; after
 * them, the instances still running are stopped (as stopInstances) and the database dropped.
 */
export function instancesForSuite(env: Record<string, string>, count = 2) {
  const suite: { database?: TestDatabase; instances: ServerProcess[] } = { instances: [] }
  before(async () => {
    suite.database = await createTestDatabase()
    suite.instances = await startInstances(suite.database, env, count)
  })
  after(async () => {
    await stopInstances(
      suite.instances.filter((instance) => instance.child.exitCode === null && !instance.child.killed),
    )
    await suite.database?.drop()
  })
  return suite
}
