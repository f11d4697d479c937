// Starts the real app (buildApp, the production options) on a real loopback port, on a fresh migrated
// database of its own (SQLite file or PostgreSQL schema, see store.ts), so that every test file talks HTTP
// to an isolated service as a user would.
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { loadConfig, type Config } from '../../src/config.js'
import type { Tuning } from '../../src/config/tuning.js'
import { openStore, type Store } from '../../src/db/store.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import type { WebhookNetwork } from '../../src/webhooks/delivery/outbound-http.js'
import { createTestDatabase, PATIENT_DATABASE, type TestDatabase } from './store.js'
import { NO_NETWORK } from './webhooks.js'

export { makeTempDir } from './temp.js'

export const TEST_API_KEY = 'test-key-0123456789abcdef'

/**
 * Quotas no test reaches, unless it sets its own: rate limits are the subject of rate-limit*.test.ts, and
 * the others (fuzzing, concurrency) send far more than the production defaults from one key and address.
 */
export const UNLIMITED = { RATE_LIMIT_PER_KEY: '1000000000', RATE_LIMIT_ANONYMOUS: '1000000000' }

export interface TestServer {
  baseUrl: string
  app: FastifyInstance
  config: Config
  store: Store
  /** Every log line the server wrote, as text. */
  logs: string[]
  /** fetch against the server; `auth: false` leaves the Authorization header out. */
  request(path: string, init?: RequestInit & { auth?: boolean | string; json?: unknown }): Promise<Response>
  close(): Promise<void>
}

export interface TestServerOptions {
  /** Extra environment variables, as a user would set them. */
  env?: Record<string, string>
  /** Changes to the fixed tuning (shorter leases and waits, faster polls), given in code as the app takes them. */
  tuning?: Partial<Tuning>
  /** Called after buildApp and before listen: tests may add routes (e.g. one that throws). */
  beforeListen?: (app: FastifyInstance) => void | Promise<void>
  /** Use this database (e.g. to restart on the same data); it is then the caller's to drop. */
  database?: TestDatabase
  /**
   * Where webhooks go (a resolver stub; connections led to loopback). When absent, no host name resolves: the
   * system's resolver is not on loopback, and tests send nothing beyond it (address literals are not resolved).
   */
  webhookNetwork?: WebhookNetwork
}

/** The server's log lines so far, each parsed. */
export function logEntries<Entry = Record<string, unknown>>(server: Pick<TestServer, 'logs'>): Entry[] {
  return server.logs
    .flatMap((chunk) => chunk.split('\n'))
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Entry)
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const testDatabase = options.database ?? (await createTestDatabase())
  const config = loadConfig({
    DATABASE_URL: testDatabase.url,
    PETSTORE_API_KEYS: TEST_API_KEY,
    LOG_LEVEL: 'info',
    PORT: '0',
    ...UNLIMITED,
    ...PATIENT_DATABASE,
    ...options.env,
  })
  const logs: string[] = []
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = chunk.toString()
      logs.push(line)
      // Warnings and errors go to stderr too: npm test prints a failed file's last lines there (a 503's cause).
      if (/^\{"level":(4|5|6)0,/.test(line)) process.stderr.write(`server log: ${line.slice(0, 2000).trimEnd()}\n`)
      done()
    },
  })
  const store = openStore(config)
  await migrateToLatest(store.admin)
  const app = await buildApp(config, {
    store,
    logStream,
    webhookNetwork: options.webhookNetwork ?? NO_NETWORK,
    tuning: options.tuning,
  })
  await options.beforeListen?.(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address')
  const baseUrl = `http://127.0.0.1:${address.port}`

  return {
    baseUrl,
    app,
    config,
    store,
    logs,
    request(path, init = {}) {
      const { auth = true, json, ...rest } = init
      const headers = new Headers(rest.headers)
      if (auth !== false) headers.set('authorization', `Bearer ${typeof auth === 'string' ? auth : TEST_API_KEY}`)
      if (json !== undefined) {
        headers.set('content-type', 'application/json')
        rest.body = JSON.stringify(json)
        rest.method ??= 'POST'
      }
      return fetch(baseUrl + path, { ...rest, headers })
    },
    async close() {
      await app.close()
      if (!options.database) await testDatabase.drop()
    },
  }
}
