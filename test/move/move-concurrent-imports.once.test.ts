// Two imports into the same new SQLite file at once (a restore typed again in another terminal while the first,
// of a damaged backup, still runs): the second waits for the write lock, and when the first is refused the
// second loads the shop. The first created the file and removed it with its refusal, while the second had it
// open: the second then loaded into a file no longer there, and said it had imported the shop.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { before, describe, it } from 'node:test'
import { cliArguments } from '../helpers/cli-path.js'
import { petstore, shopContents } from '../helpers/move.js'
import { makeTempDir } from '../helpers/temp.js'

const directory = makeTempDir()
const source = join(directory, 'source.db')
const exported = join(directory, 'shop.jsonl')

/** `petstore import ARGS[0]` into `url`; its exit code and the lines after the first on stderr. */
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

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('two imports at once into the same new SQLite file', () => {
  before(async () => {
    const url = `file:${source}`
    assert.equal((await petstore(['migrate'], { DATABASE_URL: url })).code, 0)
    assert.equal((await petstore(['keys', 'create', '--name', 'one'], { DATABASE_URL: url })).code, 0)
    assert.equal((await petstore(['export', exported], { DATABASE_URL: url })).code, 0)
  })

  it('the first refused, the second loads the shop, and the file holds it', async () => {
    const target = join(directory, 'target.db')
    const text = readFileSync(exported, 'utf8')
    const first = importing('-', `file:${target}`)
    await first.started
    // Its header: it creates the file, takes the write lock and waits for the rest.
    first.stdin.write(text.slice(0, text.indexOf('\n') + 1))
    while (!existsSync(target)) await pause(20)
    const second = importing(exported, `file:${target}`)
    await second.started
    // The second has the file open and waits for the lock; the first's file then ends before its closing line.
    await pause(500)
    first.stdin.end()
    assert.deepEqual(await first.ended, {
      code: 1,
      lines: 'petstore: import refused, nothing changed: the file is truncated: it ends before its closing line\n',
    })
    assert.deepEqual(await second.ended, {
      code: 0,
      lines: `petstore: imported 4 rows (0 pets) into SQLite database ${target}\n`,
    })
    assert.equal(existsSync(target), true, 'the imported database is there')
    assert.equal(
      await shopContents(`file:${target}`, join(directory, 'again.jsonl')),
      await shopContents(`file:${source}`, join(directory, 'source.jsonl')),
    )
  })
})
