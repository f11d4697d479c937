// A WEBHOOK_SECRET_KEY that does not open the stored webhook secrets is refused when the service starts, in one
// line naming the variable, not found at the first delivery; a key that opens them, alone or beside the key
// kept in the database from before WEBHOOK_SECRET_KEY was set, starts the service as before.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { setTimeout as delay } from 'node:timers/promises'
import { after, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { openStore } from '../../src/db/store.js'
import { keyId, newSigningSecret } from '../../src/webhooks/secret-box.js'
import { STORED_KEY, signingSecretBox } from '../../src/webhooks/secret-keys.js'
import { cliArguments } from '../helpers/cli-path.js'
import { runCli, spawnServer, type CliResult } from '../helpers/process.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const OLD_KEY = randomBytes(32)
const NEW_KEY = randomBytes(32)
const DATABASE_KEPT_KEY = randomBytes(32)
const FIX = 'Set WEBHOOK_SECRET_KEY to the key that sealed them: without it every delivery would fail'
const KEY_ID = "(a key's id is the first 8 hex digits of its SHA-256)"
/** Far longer than a stop takes: a service still running then has ignored its SIGTERM. */
const EXIT_WAIT_MS = 20_000

const databases: TestDatabase[] = []
after(() => Promise.all(databases.map((database) => database.drop())))

/** A migrated test database with an endpoint per key given (its secret sealed with it), in that order. */
async function databaseWith(sealers: Buffer[], kept?: Buffer): Promise<string> {
  const database = await createTestDatabase()
  databases.push(database)
  const store = openStore(loadConfig({ DATABASE_URL: database.url }))
  try {
    await migrateToLatest(store.migrations)
    await store.transaction(async (trx) => {
      if (kept)
        await trx
          .insertInto('service_secrets')
          .values({ name: STORED_KEY, value: kept.toString('hex') })
          .execute()
      for (const [index, key] of sealers.entries()) {
        const now = new Date().toISOString()
        await trx
          .insertInto('webhook_endpoints')
          .values({
            url: `https://hooks.example.com/${index}`,
            types: null,
            description: null,
            status: 'enabled',
            secret: signingSecretBox(key, []).seal(newSigningSecret()),
            previous_secret: null,
            previous_secret_expires_at: null,
            created_at: now,
            updated_at: now,
            receives_after: 0,
          })
          .execute()
      }
    })
  } finally {
    await store.close()
  }
  return database.url
}

/**
 * `petstore serve`, expected to refuse: a service that starts instead is stopped after a while (SIGKILL, code
 * null), so that the test fails rather than waits forever.
 */
async function serve(env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, cliArguments(['serve']), {
    env: { PATH: process.env.PATH ?? '', ...env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
    killSignal: 'SIGKILL',
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  return { code, stdout, stderr }
}

/**
 * Starts the service and stops it at once (SIGTERM): it must start, and stop within a bounded time. Resolves to
 * the messages of its log lines at level warn and above about webhook secrets. (Not the others: on a loaded
 * machine, four services starting at once may see a PostgreSQL connection time out in their background work,
 * which they rightly log, and which says nothing of the key.)
 */
async function assertStarts(env: Record<string, string>): Promise<string[]> {
  const server = await spawnServer(env)
  server.child.kill('SIGTERM')
  const exit = await Promise.race([server.exited, delay(EXIT_WAIT_MS, 'still running' as const, { ref: false })])
  if (exit === 'still running') server.child.kill('SIGKILL')
  assert.equal(exit, 0, server.output())
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg)
    .filter((message) => /secret/i.test(message))
}

const KEPT_IN_DATABASE =
  'WEBHOOK_SECRET_KEY is not set: webhook signing secrets are encrypted with a key kept in the same database, so ' +
  'a copy of the database alone reveals them. Set WEBHOOK_SECRET_KEY to 32 random bytes (e.g. openssl rand -hex ' +
  '32), the same on every instance.'

describe(`the webhook secret key checked at start, on ${TEST_STORE}`, { concurrency: 4 }, () => {
  it('a WEBHOOK_SECRET_KEY other than the one that sealed the secrets: serve refuses, naming it', async () => {
    const database = await databaseWith([OLD_KEY, OLD_KEY])
    const result = await serve({ DATABASE_URL: database, WEBHOOK_SECRET_KEY: NEW_KEY.toString('hex') })
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr:
        "petstore: WEBHOOK_SECRET_KEY does not open the stored webhook secrets: webhook endpoint 2's secret was " +
        `sealed with key ${keyId(OLD_KEY)}, which is not at hand ${KEY_ID}. ${FIX}\n`,
    })
  })

  it('WEBHOOK_SECRET_KEY unset (a key kept in the database), secrets sealed with another: refused too', async () => {
    const database = await databaseWith([OLD_KEY])
    const result = await serve({ DATABASE_URL: database })
    // The refusal alone: not the warning about the key kept in the database before it.
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr:
        'petstore: WEBHOOK_SECRET_KEY is not set, and the key kept in the database does not open the stored ' +
        `webhook secrets: webhook endpoint 1's secret was sealed with key ${keyId(OLD_KEY)}, which is not at hand ` +
        `${KEY_ID}. ${FIX}\n`,
    })
  })

  it('WEBHOOK_SECRET_KEY unset, secrets sealed with the key kept in the database: starts, warning once', async () => {
    const warnings = await assertStarts({
      DATABASE_URL: await databaseWith([DATABASE_KEPT_KEY], DATABASE_KEPT_KEY),
    })
    assert.deepEqual(warnings, [KEPT_IN_DATABASE])
  })

  it('the key that sealed them: serve starts, without a warning', async () => {
    const warnings = await assertStarts({
      DATABASE_URL: await databaseWith([OLD_KEY]),
      WEBHOOK_SECRET_KEY: OLD_KEY.toString('hex'),
    })
    assert.deepEqual(warnings, [])
  })

  it('secrets sealed with the key kept in the database before WEBHOOK_SECRET_KEY was set: serve starts', async () => {
    await assertStarts({
      DATABASE_URL: await databaseWith([DATABASE_KEPT_KEY], DATABASE_KEPT_KEY),
      WEBHOOK_SECRET_KEY: NEW_KEY.toString('hex'),
    })
  })

  it('no endpoint: any key starts the service', async () => {
    await assertStarts({ DATABASE_URL: await databaseWith([]), WEBHOOK_SECRET_KEY: NEW_KEY.toString('hex') })
  })

  it('petstore webhooks list and deliveries open no secret: they still answer, to help find the key', async () => {
    const database = await databaseWith([OLD_KEY])
    const env = { DATABASE_URL: database, WEBHOOK_SECRET_KEY: NEW_KEY.toString('hex') }
    const list = await runCli(['webhooks', 'list'], env)
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, /^id\turl\t.*\n1\thttps:\/\/hooks\.example\.com\/0\tall\tenabled\t/)
    const deliveries = await runCli(['webhooks', 'deliveries', '1'], env)
    assert.equal(deliveries.code, 0, deliveries.stderr)
  })
})
