// Which test files npm test runs, and in which passes, read from where each file lives and how it is named, so
// that a new file needs registering nowhere (docs/testing.md, "Where tests live"). Every `*.test.ts` under test/
// (test/helpers/ holds none) runs on SQLite and again on PostgreSQL, except:
// - `*.once.test.ts`: its subject does not depend on the store (configuration, the document and its gates, the
//   client's packaging, a helper tested alone, SQLite's own read path, a move that names both stores itself):
//   run once, on SQLite.
// - `*.alone.test.ts`: it measures the server's time-outs against slow clients: run once, on SQLite, by itself
//   after the other files, so that no other file competes for the cores.
// - `postgres-*.test.ts`: about PostgreSQL itself (its outages): the PostgreSQL pass only.
// In every pass, a test that starts the petstore command as a process starts the production bundle that npm start
// and the Docker image run (npm test builds it first); one that starts a server tuned in code (shorter leases,
// faster polls: test/helpers/tuned-serve.ts) starts it from the sources.
import { readdirSync } from 'node:fs'
import { basename, join, relative, resolve } from 'node:path'

export const TEST_DIRECTORY = 'test'
const HELPERS = join(TEST_DIRECTORY, 'helpers')

export const runsOnce = (file: string): boolean => file.endsWith('.once.test.ts')
export const runsAlone = (file: string): boolean => file.endsWith('.alone.test.ts')
export const isPostgresOnly = (file: string): boolean => basename(file).startsWith('postgres-')

/** Every test file, as a path from the repository's root (`test/pets/pets-create.test.ts`), sorted. */
export function findTestFiles(): string[] {
  return readdirSync(TEST_DIRECTORY, { recursive: true, encoding: 'utf8' })
    .map((file) => join(TEST_DIRECTORY, file))
    .filter((file) => file.endsWith('.test.ts') && !file.startsWith(`${HELPERS}/`))
    .sort()
}

/**
 * The files named after `npm test --`: a bare file name (`pets-create.test.ts`, wherever it lives), or the path of
 * a file or a folder, from the repository's root or from test/ (`test/pets/pets-create.test.ts`, `pets/`).
 * `unknown` holds the names that match no test file. No names: every file.
 */
export function chooseTestFiles(files: string[], names: string[]): { chosen: string[]; unknown: string[] } {
  if (names.length === 0) return { chosen: files, unknown: [] }
  const chosen = new Set<string>()
  const unknown: string[] = []
  for (const name of names) {
    const matches = files.filter((file) => matchesName(file, name))
    if (matches.length === 0) unknown.push(name)
    for (const file of matches) chosen.add(file)
  }
  return { chosen: files.filter((file) => chosen.has(file)), unknown }
}

function matchesName(file: string, name: string): boolean {
  if (!name.includes('/')) return basename(file) === name
  // From the working directory (npm runs scripts at the repository's root): `./test/…` and absolute paths too.
  const path = relative(process.cwd(), resolve(name))
  return [path, join(TEST_DIRECTORY, path)].some((prefix) => file === prefix || file.startsWith(`${prefix}/`))
}
