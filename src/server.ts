// Starting the service: configuration, database, migrations, the app, listening, graceful shutdown.
import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import { pino, type DestinationStream } from 'pino'
import { buildApp } from './app.js'
import type { Config } from './config.js'
import { DEFAULT_TUNING, type Tuning } from './config/tuning.js'
import { openStore } from './db/store.js'
import { refuseUnmigrated } from './db/migrate.js'
import { migrateWhenUnlocked } from './db/migrate-when-unlocked.js'
import { SqliteDatabaseMissingError } from './db/sqlite.js'
import { showFirstRunKey } from './keys/first-run-key.js'
import { issueInitialKeyIfNone } from './keys/issue-key.js'
import { createLogDestination } from './log-destination.js'
import { describeDatabase, explainingDatabaseErrors } from './db/database-errors.js'
import { explainListenError } from './startup-errors.js'

/** `tuning`: changes to the fixed tuning, given in code by tests that start a server process of their own. */
export async function serve(config: Config, tuning?: Partial<Tuning>): Promise<void> {
  let app: FastifyInstance | undefined
  // A pooled PostgreSQL connection can fail while idle (the server restarted); the pool replaces it.
  const store = await explainingDatabaseErrors(config.database, () => {
    try {
      // Without migrations on start, serve never creates a database: an empty one could only be refused.
      return openStore(config, (error) => app?.log.warn({ err: error }, 'an idle database connection failed'), {
        mustExist: !config.migrateOnStart,
      })
    } catch (error) {
      if (!(error instanceof SqliteDatabaseMissingError)) throw error
      throw new Error(
        `${error.message}, and serve with MIGRATE_ON_START=false does not create one: run petstore migrate first`,
        { cause: error },
      )
    }
  })
  let initialKey: { key: string; id: number } | undefined
  // From the moment it listens, the service answers /readyz; a stop signal that comes before the shutdown handler
  // below is in place (the first-run key's query is still running) is held, then acted on. Without a listener,
  // Node's default would kill the process, with no graceful close.
  const heldSignals: NodeJS.Signals[] = []
  const holdSignal = (signal: NodeJS.Signals) => heldSignals.push(signal)
  const logStream = createLogDestination()
  try {
    app = await explainingDatabaseErrors(config.database, async () => {
      const { newer } = config.migrateOnStart
        ? await migrateWhenUnlocked(store.migrations, (milliseconds) => logLockWait(config, logStream, milliseconds))
        : await refuseUnmigrated(store.migrations, describeDatabase(config.database))
      const built = await buildApp(config, { store, logStream, tuning })
      if (newer.length > 0)
        built.log.warn(
          { newerMigrations: newer },
          'the database holds migrations of a newer petstore: this version runs on it as it does during an ' +
            'upgrade; finish the upgrade or roll back',
        )
      return built
    })
    process.on('SIGTERM', holdSignal).on('SIGINT', holdSignal)
    await app
      .listen({
        port: config.port,
        host: config.host,
        // The start-up line names the database, so that a service started on the wrong one says so at once.
        listenTextResolver: (address) => `Server listening at ${address}, using ${describeDatabase(config.database)}`,
      })
      .catch((error: unknown) => {
        throw explainListenError(error, config) ?? error
      })
    // Issued once the server listens, so a start that fails (port taken) prints no key for a service that is
    // not running and leaves the first-run key to the next, successful start.
    initialKey = await issueInitialKeyIfNone(store, config.staticApiKeys)
  } catch (error) {
    process.off('SIGTERM', holdSignal).off('SIGINT', holdSignal)
    // The app closes the store in its onClose hook; before the app exists, it is closed here.
    if (app) await app.close()
    else await store.close()
    throw error
  }

  // Not waited for: a reader of standard output that is slow to take the key must not hold up the start (and the
  // signal handlers below). It never throws.
  const firstRunKey = initialKey && showFirstRunKey(store, initialKey)

  // Installed only after a successful start: close-with-grace also acts on 'beforeExit' and then exits with
  // code 0, which would turn a failed start into a "successful" exit.
  const running = app
  closeWithGrace(
    {
      delay: tuning?.shutdownGraceMs ?? DEFAULT_TUNING.shutdownGraceMs,
      // Its own lines (a second signal, the grace period over) in the service's log, as JSON like every other.
      logger: running.log,
      onTimeout: (graceMs) =>
        running.log.error({ graceMs }, 'requests still running when the grace period ended were cut off; exit code 1'),
    },
    async ({ signal, err }) => {
      if (err) running.log.error({ err }, 'shutting down after an unexpected error')
      else running.log.info({ signal }, 'shutting down')
      await firstRunKey?.withdrawUnlessShown()
      await running.close()
    },
  )
  // Removed only once the shutdown handler listens: removing a signal's last listener stops Node watching for it,
  // and a signal already received but not yet dispatched (it came in the same turn as the key's query answer)
  // was lost, leaving a service that ignored its SIGTERM.
  process.off('SIGTERM', holdSignal).off('SIGINT', holdSignal)
  const [held] = heldSignals
  if (held) process.kill(process.pid, held)
}

/** The service's log has no logger before the app exists: the line of a start that waits for the write lock. */
function logLockWait(config: Config, stream: DestinationStream, milliseconds: number): void {
  pino({ level: config.logLevel }, stream).warn(
    { waitedSeconds: Math.round(milliseconds / 1000) },
    `the ${describeDatabase(config.database)} is held for writing by another process (another instance migrating it, ` +
      'an import, a petstore command): waiting for it before migrating',
  )
}
