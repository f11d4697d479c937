// Two imports into the same empty PostgreSQL database at once (a restore typed twice): the second waits for the
// first and is then refused as an import into a database that holds a shop. It used to create the schema's tables
// beside the first one's, fail on PostgreSQL's catalog, and say only "current transaction is aborted".
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { cliArguments } from '../helpers/cli-path.js'
import { petstore } from '../helpers/move.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'
import { makeTempDir } from '../helpers/temp.js'

const directory = makeTempDir()
const source = join(directory, 'source.db')
const exported = join(directory, 'shop.jsonl')

/** `petstore import FILE` into `url`; its exit code and the lines after the first on stderr. */
function importing(file: string, url: string) {
  const child = spawn(process.execPath, cliArguments(['import', file]), {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: url },
    stdio: ['pipe', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const started = new Promise<void>((resolve) => child.stderr.once('data', () => resolve()))
  const ended = new Promise<{ code: number | null; lines: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, lines: stderr.split('\n').slice(1).join('\n') })),
  )
  return { stdin: child.stdin, started, ended }
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('two imports at once into the same empty PostgreSQL database', () => {
  let target: TestDatabase
  before(async () => {
    const url = `file:${source}`
    assert.equal((await petstore(['migrate'], { DATABASE_URL: url })).code, 0)
    assert.equal((await petstore(['keys', 'create', '--name', 'one'], { DATABASE_URL: url })).code, 0)
    assert.equal((await petstore(['export', exported], { DATABASE_URL: url })).code, 0)
    target = await createTestDatabase('postgres')
  })
  after(() => target.drop())

  it('the second waits for the first, then is refused as into a database that holds a shop', async () => {
    const text = readFileSync(exported, 'utf8')
    const first = importing('-', target.url)
    await first.started
    // Its header: it migrates the empty database in its transaction and waits for the rest.
    first.stdin.write(text.slice(0, text.indexOf('\n') + 1))
    const observer = new pg.Client({ connectionString: target.url })
    await observer.connect()
    try {
      // The first has migrated the database in its transaction, and waits for the rest of its file.
      await until(async () => {
        const { rows } = await observer.query<{ waiting: number }>(
          'select count(*)::int as waiting from pg_stat_activity ' +
            "where datname = current_database() and state = 'idle in transaction'",
        )
        return (rows[0]?.waiting ?? 0) > 0
      })
      const second = importing(exported, target.url)
      await second.started
      await new Promise((resolve) => setTimeout(resolve, 500))
      first.stdin.end(text.slice(text.indexOf('\n') + 1))
      const imported = await first.ended
      assert.equal(imported.code, 0, imported.lines)
      assert.match(imported.lines, /^petstore: imported 4 rows \(0 pets\) into PostgreSQL database [^\n]+\n$/)
      assert.deepEqual(await second.ended, {
        code: 1,
        lines:
          'petstore: import refused, nothing changed: the target database already holds a shop (api_keys has rows): ' +
          'import into an empty one\n',
      })
    } finally {
      await observer.end()
    }
  })
})
