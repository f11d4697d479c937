// Starting the service: configuration, database, migrations, the app, listening, graceful shutdown.
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import type { Config } from './config.js'
import { connectDatabase } from './db/connect.js'
import { migrateToLatest } from './db/migrate.js'
import { issueInitialKeyIfNone } from './keys/issue-key.js'

/** In-flight requests get this long to finish after SIGTERM/SIGINT before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000

export async function serve(config: Config): Promise<void> {
  const database = connectDatabase(config.database)
  await migrateToLatest(database.db)
  const initialKey = await issueInitialKeyIfNone(database.db, config.staticApiKeys)
  const app = await buildApp(config, { database })

  if (initialKey) {
    process.stdout.write(
      '\nFirst run: created an API key. It is shown only this once; store it now:\n\n' +
        `    ${initialKey}\n\n` +
        'Use it as "Authorization: Bearer <key>". Create more with: npx petstore keys create --name NAME\n\n',
    )
  }

  // The database closes in the app's onClose hook, after the server has stopped and requests have finished.
  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an unexpected error')
    else app.log.info({ signal }, 'shutting down')
    await app.close()
  })

  await app.listen({ port: config.port, host: config.host })
}
