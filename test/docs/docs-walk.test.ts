// The tour of the API (docs/api-tour.md) is a script: its shell blocks (each preceded by `<!-- walk -->`) are
// run in order, in one bash, against a real server on a fresh database, exactly as a reader pastes them. Every
// status line the page shows must be the one the service answers, in order, and every body and header line it
// shows must be printed, so the tour cannot drift from the service.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { spawnServer, type ServerProcess } from '../helpers/process.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'
import { assertPrintedAsShown, runWalk, walkBlocks } from '../helpers/walk.js'

const KEY = 'docs-walk-key-0123456789'
const TOUR = 'docs/api-tour.md'

describe('the tour of the API in docs/api-tour.md', () => {
  let database: TestDatabase
  let server: ServerProcess
  const script = walkBlocks(readFileSync(TOUR, 'utf8')).join('\n')

  before(async () => {
    database = await createTestDatabase()
    server = await spawnServer({ DATABASE_URL: database.url, PETSTORE_API_KEYS: KEY })
  })

  after(async () => {
    server?.child.kill('SIGTERM')
    await server?.exited
    await database?.drop()
  })

  it('has its four blocks: pets, store orders, idempotent retries, catalogue maintenance', () => {
    const blocks = walkBlocks(readFileSync(TOUR, 'utf8'))
    assert.equal(blocks.length, 4)
    assert.match(blocks[0] ?? '', /"\$API\/pets\?limit=1&status=available"/)
    assert.match(blocks[1] ?? '', /"\$API\/store\/orders"/)
    assert.match(blocks[2] ?? '', /Idempotency-Key/)
    assert.match(blocks[3] ?? '', /If-Match: \$ETAG/)
    assert.match(blocks[3] ?? '', /-X DELETE/)
  })

  it('runs top to bottom in bash against a fresh database, printing exactly what the page shows', async () => {
    const { code, output } = await runWalk(script, { KEY, BASE_URL: server.baseUrl })
    assert.equal(code, 0, output)
    const expected = assertPrintedAsShown(TOUR, script, output, server.baseUrl)
    assert.equal(expected.statuses.length, 23)
  })

  it('refuses to run without a key, saying what to set', async () => {
    const { code, output } = await runWalk(script, { BASE_URL: server.baseUrl })
    assert.equal(code, 1)
    assert.match(output, /KEY: set KEY to your API key first/)
  })
})
