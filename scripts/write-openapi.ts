// Writes the OpenAPI document the service serves at /v1/openapi.json to a file: the committed contract
// (openapi/petstore-v1.json, `npm run openapi:write`), its check (`npm run openapi:check`: regenerate and fail on
// any difference) and the lint (`npm run lint:openapi`). It builds the real app (buildApp, the production
// options) on a throw-away SQLite file, so the document is exactly the one a running instance generates; nothing
// listens on a port. The output is deterministic: no production or staging server is configured (each operator
// names their own), and the instance that "served" it is the address `npm start` listens on with no configuration.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openStore } from '../src/db/store.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { isMain } from './is-main.js'

export const COMMITTED_DOCUMENT = 'openapi/petstore-v1.json'

/** The document as text, exactly as committed (two-space JSON and a final newline). */
export async function generateDocument(): Promise<string> {
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
      // The instance's origin in the committed document: HOST and PORT left at their defaults, where `npm start`
      // serves with no configuration.
      const host = `${config.host}:${config.port}`
      const response = await app.inject({ method: 'GET', url: '/v1/openapi.json', headers: { host } })
      if (response.statusCode !== 200)
        throw new Error(`GET /v1/openapi.json answered ${response.statusCode}: ${response.body}`)
      return `${JSON.stringify(response.json(), null, 2)}\n`
    } finally {
      // Closes the database too (the app's onClose hook).
      await app.close()
    }
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

/** The first line where two texts differ, for a message that points at it. */
function firstDifference(expected: string, actual: string): string {
  const a = expected.split('\n')
  const b = actual.split('\n')
  for (let line = 0; line < Math.max(a.length, b.length); line++) {
    if (a[line] !== b[line])
      return `line ${line + 1}:\n  committed: ${a[line] ?? '(end of file)'}\n  generated: ${b[line] ?? '(end of file)'}`
  }
  return 'none'
}

async function main([command, outputPath]: string[]): Promise<void> {
  const document = await generateDocument()
  if (command === '--check') {
    let committed = ''
    try {
      committed = readFileSync(resolve(COMMITTED_DOCUMENT), 'utf8')
    } catch {
      committed = ''
    }
    if (committed !== document) {
      throw new Error(
        `${COMMITTED_DOCUMENT} differs from the document the code generates, first at ` +
          `${firstDifference(committed, document)}\n` +
          'If the change is intended, run `npm run openapi:write` and commit the document with the change (the ' +
          'breaking-change gate, `npm run openapi:breaking`, then judges it).',
      )
    }
    process.stdout.write(`${COMMITTED_DOCUMENT} is up to date\n`)
    return
  }
  const path = command ?? outputPath
  if (!path) throw new Error('usage: tsx scripts/write-openapi.ts OUTPUT.json | --check')
  writeFileSync(resolve(path), document)
  process.stdout.write(`wrote ${path}\n`)
}

if (isMain(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`write-openapi: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  })
}
