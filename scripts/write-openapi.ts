// Writes the OpenAPI document the service serves at /v1/openapi.json to a file, for linting (npm run lint:openapi).
// It builds the real app (buildApp, the production options) on a throw-away SQLite file, so the document is
// exactly the one a running instance generates; nothing listens on a port.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openStore } from '../src/db/store.js'
import { migrateToLatest } from '../src/db/migrate.js'

async function main(outputPath: string | undefined): Promise<void> {
  if (!outputPath) throw new Error('usage: tsx scripts/write-openapi.ts OUTPUT.json')
  const directory = mkdtempSync(join(tmpdir(), 'petstore-openapi-'))
  try {
    const config = loadConfig({
      DATABASE_URL: `file:${join(directory, 'petstore.db')}`,
      // A static key keeps the first-run key issuing out of the way; it is never used or printed.
      PETSTORE_API_KEYS: 'openapi-writer-key-0123456789',
      LOG_LEVEL: 'warn',
    })
    const store = openStore(config)
    await migrateToLatest(store.admin)
    const app = await buildApp(config, { store })
    try {
      await app.ready()
      const response = await app.inject({ method: 'GET', url: '/v1/openapi.json', headers: { host: 'localhost:8080' } })
      if (response.statusCode !== 200)
        throw new Error(`GET /v1/openapi.json answered ${response.statusCode}: ${response.body}`)
      const document: unknown = response.json()
      writeFileSync(resolve(outputPath), `${JSON.stringify(document, null, 2)}\n`)
    } finally {
      // Closes the database too (the app's onClose hook).
      await app.close()
    }
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
  process.stdout.write(`wrote ${outputPath}\n`)
}

main(process.argv[2]).catch((error: unknown) => {
  process.stderr.write(`write-openapi: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
