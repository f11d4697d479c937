// The file an operator keeps holds secrets (webhook secrets as stored, the cursor key, key digests): it is
// written with mode 0600 and says so. And export and import compose through a pipe, as a backup or a move is
// typed: `petstore export - | petstore import -`, the target then holding what the source held.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { appendFileSync, copyFileSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import SqliteDatabase from 'better-sqlite3'
import { SCHEMA_VERSION } from '../../src/move/format.js'
import { cliArguments } from '../helpers/cli-path.js'
import { petstore, shopContents } from '../helpers/move.js'
import { makeTempDir, startTestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

const directory = makeTempDir()

/** `petstore export -` piped into `petstore import -`, each with its own DATABASE_URL; their exit codes. */
function exportThroughPipe(from: string, to: string): Promise<[number | null, number | null]> {
  const run = (args: string[], url: string, stdin: 'ignore' | 'pipe', stdout: 'ignore' | 'pipe') =>
    spawn(process.execPath, cliArguments(args), {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: url },
      stdio: [stdin, stdout, 'inherit'],
    })
  const exporting = run(['export', '-'], from, 'ignore', 'pipe')
  const importing = run(['import', '-'], to, 'pipe', 'ignore')
  exporting.stdout?.pipe(importing.stdin ?? process.stdout)
  const ended = (child: ReturnType<typeof spawn>) =>
    new Promise<number | null>((resolve) => child.once('close', resolve))
  return Promise.all([ended(exporting), ended(importing)])
}

describe('a shop file on disk, and a move through a pipe', () => {
  let source: TestDatabase
  let target: TestDatabase
  before(async () => {
    source = await createTestDatabase('sqlite')
    target = await createTestDatabase('sqlite')
    const server = await startTestServer({ database: source })
    try {
      for (const name of ['Rex', 'Tom', 'Kit']) await server.request('/v1/pets', { json: { name, categoryId: 3 } })
    } finally {
      await server.close()
    }
  })
  after(async () => {
    await source.drop()
    await target.drop()
  })

  it('writes the file with mode 0600 and says so on stderr', async () => {
    const file = join(directory, 'shop.jsonl')
    const result = await petstore(['export', file], { DATABASE_URL: source.url })
    assert.equal(result.code, 0, result.stderr)
    assert.equal(statSync(file).mode & 0o777, 0o600)
    assert.match(result.stderr, /0600/)
  })

  it('refuses to export a database a newer petstore migrated, writing no file', async () => {
    const newer = join(directory, 'newer.db')
    copyFileSync(fileURLToPath(source.url.replace(/^file:/, 'file://')), newer)
    const handle = new SqliteDatabase(newer)
    handle.prepare("insert into kysely_migration (name, timestamp) values ('9999_future', '2027-01-01')").run()
    handle.close()
    const file = join(directory, 'newer.jsonl')
    const result = await petstore(['export', file], { DATABASE_URL: `file:${newer}` })
    assert.equal(result.code, 1)
    assert.equal(
      result.stderr.split('\n').slice(1).join('\n'),
      `petstore: the database's schema 9999_future is newer than this petstore's (${SCHEMA_VERSION}): export with ` +
        'the petstore that migrated it\n',
    )
    assert.equal(existsSync(file), false)
  })

  it('refuses a target in a missing directory, or that is a directory, before reading anything', async () => {
    const missing = join(directory, 'no-such-directory', 'shop.jsonl')
    // A file taken for a directory: these used to fail only after the whole shop was read, naming the temporary
    // file ("ENOTDIR: not a directory, rename '.backups.PID.partial' -> 'backups/'").
    const notes = join(directory, 'notes.txt')
    writeFileSync(notes, 'not a directory\n')
    for (const [file, cause] of [
      [missing, `no directory ${join(directory, 'no-such-directory')} to write ${missing} in`],
      [directory, `${directory} is a directory: name a file to export to`],
      [`${join(directory, 'backups')}/`, `${join(directory, 'backups')}/ names a directory: name a file to export to`],
      [`${notes}/`, `${notes}/ names a directory: name a file to export to`],
      [join(notes, 'shop.jsonl'), `${notes} is not a directory to write ${join(notes, 'shop.jsonl')} in`],
    ] as const) {
      const result = await petstore(['export', file], { DATABASE_URL: source.url })
      assert.equal(result.code, 1)
      assert.equal(result.stdout, '')
      assert.equal(result.stderr.split('\n').slice(1).join('\n'), `petstore: ${cause}\n`)
    }
    assert.equal(existsSync(join(directory, 'no-such-directory')), false)
    assert.equal(existsSync(join(directory, 'backups')), false)
    assert.deepEqual(
      readdirSync(directory).filter((name) => name.endsWith('.partial')),
      [],
    )
  })

  it('takes a file with blank lines after its closing line, as an editor may leave it', async () => {
    const file = join(directory, 'blank-lines.jsonl')
    assert.equal((await petstore(['export', file], { DATABASE_URL: source.url })).code, 0)
    appendFileSync(file, '\n  \r\n\n')
    const blankTarget = await createTestDatabase('sqlite')
    try {
      const result = await petstore(['import', file], { DATABASE_URL: blankTarget.url })
      assert.equal(result.code, 0, result.stderr)
      assert.equal(
        await shopContents(blankTarget.url, join(directory, 'blank-target.jsonl')),
        await shopContents(source.url, join(directory, 'blank-source.jsonl')),
      )
    } finally {
      await blankTarget.drop()
    }
  })

  it('moves the whole shop from export - to import -', async () => {
    assert.deepEqual(await exportThroughPipe(source.url, target.url), [0, 0])
    const before = await shopContents(source.url, join(directory, 'source.jsonl'))
    const after = await shopContents(target.url, join(directory, 'target.jsonl'))
    assert.equal(after, before)
    assert.match(after, /"name":"Kit"/)
  })
})
