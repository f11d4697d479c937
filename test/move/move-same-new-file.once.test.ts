// Two imports into the same new SQLite file at once (a command run again in another terminal, a retried script):
// one that is refused removes only what it made itself. Each loads into a file of its own beside the target, put
// in place once committed; the refused one used to remove the target it had created, with the other's shop in it,
// while the other said it had imported everything.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { cliArguments } from '../helpers/cli-path.js'
import { exportShop, shopContents } from '../helpers/move.js'
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
