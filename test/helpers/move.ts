// Exporting and importing a shop as an operator does: the petstore command as a process of its own.
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { Checksum } from '../../src/move/checksum.js'
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

/**
 * Rewrites the shop file `file` in place with each line before the closing one changed by `edit` (line 0 is the
 * header; undefined leaves the line out), and the closing line's counts by `editCounts`, then seals it again: the
 * closing line's checksum is computed over the edited lines, as the export does.
 */
export function resealShopFile(
  file: string,
  edit: (line: Record<string, unknown>, index: number) => Record<string, unknown> | undefined,
  editCounts: (counts: Record<string, number>) => Record<string, number> = (counts) => counts,
): void {
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
  const closing = JSON.parse(lines.pop() ?? '') as Record<string, unknown> & { counts: Record<string, number> }
  const edited = lines.flatMap((line, index) => {
    const kept = edit(JSON.parse(line) as Record<string, unknown>, index)
    return kept === undefined ? [] : [JSON.stringify(kept)]
  })
  const checksum = new Checksum()
  for (const line of edited) checksum.add(`${line}\n`)
  const sealed = { ...closing, counts: editCounts(closing.counts), sha256: checksum.hex() }
  writeFileSync(file, [...edited, JSON.stringify(sealed)].join('\n') + '\n')
}
