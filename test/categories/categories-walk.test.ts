// The walk of docs/categories.md, run in bash against a real server on a fresh database: every status, body
// and header line the page shows must be what the service answers, in order.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { spawnServer, type ServerProcess } from '../helpers/process.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'
import { assertPrintedAsShown, runWalk, walkBlocks } from '../helpers/walk.js'

const KEY = 'categories-walk-key-0123456789'
const PAGE = 'docs/categories.md'

describe('the walk of docs/categories.md', () => {
  let database: TestDatabase
  let server: ServerProcess
  const script = walkBlocks(readFileSync(PAGE, 'utf8')).join('\n')

  before(async () => {
    database = await createTestDatabase()
    server = await spawnServer({ DATABASE_URL: database.url, PETSTORE_API_KEYS: KEY })
  })
  after(async () => {
    server?.child.kill('SIGTERM')
    await server?.exited
    await database?.drop()
  })

  it('runs top to bottom in bash, printing exactly what the page shows', async () => {
    const { code, output } = await runWalk(script, { KEY, BASE_URL: server.baseUrl })
    assert.equal(code, 0, output)
    const expected = assertPrintedAsShown(PAGE, script, output, server.baseUrl)
    assert.equal(expected.statuses.length, 9)
    assert.equal(expected.lines.length, 15)
  })
})
