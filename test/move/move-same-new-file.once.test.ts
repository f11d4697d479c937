// Two imports into the same new SQLite file at once (a command run again in another terminal, a retried script):
// one that is refused removes only what it made itself. Each loads into a file of its own beside the target, put
// in place once committed; the refused one used to remove the target it had created, with the other's shop in it,
// while the other said it had imported everything. Into an existing file, the second waits for the first's write
// lock as long as SQLite does, and is then refused with a line that names the file.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import SqliteDatabase from 'better-sqlite3'
import { randomBytes } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { cliArguments } from '../helpers/cli-path.js'
import { exportShop, petstore, shopContents } from '../helpers/move.js'
import { makeTempDir, startTestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

const directory = makeTempDir()
const exported = join(directory, 'shop.jsonl')
const WEBHOOK_SECRET_KEY = randomBytes(32).toString('hex')
let source: TestDatabase

function start(
  args: string[],
  url: string,
): { child: ChildProcess; ended: Promise<[number | null, string]>; stderr: () => string } {
  const child = spawn(process.execPath, cliArguments(args), {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, WEBHOOK_SECRET_KEY },
    stdio: ['pipe', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return {
    child,
    ended: new Promise((resolve) => child.once('close', (code) => resolve([code, stderr]))),
    stderr: () => stderr,
  }
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await sleep(5)
  }
}

/** Whether a writer could begin here now: false while another process holds the write lock. */
function canTakeWriteLock(path: string): boolean {
  const probe = new SqliteDatabase(path, { timeout: 0 })
  try {
    probe.exec('begin immediate')
    probe.exec('rollback')
    return true
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') return false
    throw error
  } finally {
    probe.close()
  }
}

before(async () => {
  source = await createTestDatabase('sqlite')
  const server = await startTestServer({ database: source, env: { WEBHOOK_SECRET_KEY } })
  try {
    for (const name of ['Rex', 'Tom']) await server.request('/v1/pets', { json: { name, categoryId: 1 } })
  } finally {
    await server.close()
  }
  await exportShop(source.url, exported)
})
after(async () => {
  await source.drop()
})

describe('two imports into the same new SQLite file at once', () => {
  it('the refused one leaves the shop the other imported', async () => {
    const target = join(directory, 'contested.db')
    const [header = ''] = readFileSync(exported, 'utf8').split('\n')
    // The first holds its load open, waiting for the rest of its file, as from a slow pipe.
    const first = start(['import', '-'], `file:${target}`)
    first.child.stdin?.write(`${header}\n`)
    await until(() => readdirSync(directory).some((name) => name.includes('contested')))
    await sleep(300)
    // The second, with a whole file, starts while the first has the new file open.
    const second = start(['import', exported], `file:${target}`)
    // Once it has started (from the sources, that alone can take more than a second), time to open the file.
    await until(() => second.stderr().includes('petstore: using SQLite database'))
    await sleep(1000)
    // The rest of the first one's file is damaged: it is refused.
    first.child.stdin?.end('{"table":\n')
    const [[firstCode, firstError], [secondCode, secondError]] = await Promise.all([first.ended, second.ended])
    assert.deepEqual(
      [firstCode, firstError.split('\n').slice(1).join('\n')],
      [1, 'petstore: import refused, nothing changed: the file is truncated: it ends in the middle of line 2\n'],
    )
    assert.equal(secondCode, 0, secondError)
    assert.deepEqual(
      readdirSync(directory).filter((name) => name.includes('contested')),
      ['contested.db'],
    )
    assert.equal(
      await shopContents(`file:${target}`, join(directory, 'contested.jsonl')),
      await shopContents(source.url, join(directory, 'source.jsonl')),
    )
  })
})

describe('two imports into the same existing, empty SQLite file at once', () => {
  it('the second waits for the write lock as long as SQLite does, then names the file and what holds it', async () => {
    const target = join(directory, 'migrated.db')
    const migrated = await petstore(['migrate'], { DATABASE_URL: `file:${target}` })
    assert.equal(migrated.code, 0, migrated.stderr)
    const [header = '', ...rest] = readFileSync(exported, 'utf8').split('\n')
    const first = start(['import', '-'], `file:${target}`)
    first.child.stdin?.write(`${header}\n`)
    try {
      // The first holds the write lock once it has read its header and begun its load.
      await until(() => !canTakeWriteLock(target))
      const [secondCode, secondError] = await start(['import', exported], `file:${target}`).ended
      assert.deepEqual(
        [secondCode, secondError.split('\n').slice(1).join('\n')],
        [
          1,
          `petstore: import refused, nothing changed: the SQLite database ${target} is locked: another process ` +
            'held it for writing for 5 s (an import, a petstore command, or a service writing to it); try again ' +
            'once it is done\n',
        ],
      )
    } catch (error) {
      // Not left waiting for the rest of its file: the test ends with its failure.
      first.child.kill('SIGKILL')
      throw error
    }
    first.child.stdin?.end(rest.join('\n'))
    const [firstCode, firstError] = await first.ended
    assert.equal(firstCode, 0, firstError)
    assert.equal(
      await shopContents(`file:${target}`, join(directory, 'migrated.jsonl')),
      await shopContents(source.url, join(directory, 'source-again.jsonl')),
    )
  })
})
