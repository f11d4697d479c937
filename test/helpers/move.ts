// Exporting and importing a shop as an operator does: the petstore command as a process of its own.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { runCli } from './process.js'
import { createTestDatabase, type TestDatabase } from './store.js'

/** `petstore ARGS` with only PATH and `env` set. */
export { runCli as petstore } from './process.js'

/** The lines of a shop file as JSON values. */
export function shopLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** The rows of one table in a shop file. */
export function shopRows(file: string, table: string): Record<string, unknown>[] {
  return shopLines(file).flatMap((line) =>
    line.table === table && typeof line.row === 'object' && line.row !== null
      ? [line.row as Record<string, unknown>]
      : [],
  )
}

/** What a database holds: its shop file without the header and closing line (which name a time and a store). */
export async function shopContents(url: string, file: string): Promise<string> {
  const result = await runCli(['export', file], { DATABASE_URL: url })
  if (result.code !== 0) throw new Error(`export failed: ${result.stderr}`)
  return readFileSync(file, 'utf8').split('\n').slice(1, -2).join('\n')
}

/** `petstore export FILE` of the shop at `url`, asserted to succeed. */
export async function exportShop(url: string, file: string): Promise<void> {
  const exported = await runCli(['export', file], { DATABASE_URL: url })
  assert.equal(exported.code, 0, exported.stderr)
}

/** `petstore import FILE` into a new database of the store under test, asserted to succeed; the caller drops it. */
export async function importIntoNewDatabase(file: string): Promise<TestDatabase> {
  const target = await createTestDatabase()
  try {
    const imported = await runCli(['import', file], { DATABASE_URL: target.url })
    assert.equal(imported.code, 0, imported.stderr)
    return target
  } catch (error) {
    await target.drop()
    throw error
  }
}
