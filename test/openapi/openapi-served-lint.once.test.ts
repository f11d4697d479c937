// The document a plain instance serves (no configured servers, reached over plain HTTP on loopback) passes the
// project's own Spectral gate (the OpenAPI and OWASP rules of .spectral.yaml), not only the committed copy; and its
// only server is that instance, so the docs page offers no production or staging server that does not exist here.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { makeTempDir, startTestServer, type TestServer } from '../helpers/server.js'

describe('the document a plain instance serves', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('names only this instance as its server, and the docs page gets the same document', async () => {
    const response = await fetch(`${server.baseUrl}/v1/openapi.json`)
    assert.equal(response.status, 200)
    const { servers } = (await response.json()) as { servers: unknown }
    assert.deepEqual(servers, [
      {
        url: `${server.baseUrl}/v1`,
        description:
          'This instance, a local or development one (no production or staging server is configured): the ' +
          'address this document was fetched from.',
        'x-internal': true,
      },
    ])
    const docs = (await (await fetch(`${server.baseUrl}/docs/json`)).json()) as { servers: unknown }
    assert.deepEqual(docs.servers, servers)
  })

  it('passes npm run lint:openapi (Spectral with .spectral.yaml)', async () => {
    const path = join(makeTempDir(), 'served.json')
    writeFileSync(path, await (await fetch(`${server.baseUrl}/v1/openapi.json`)).text())
    const { stdout } = await promisify(execFile)(
      join('node_modules', '.bin', 'spectral'),
      ['lint', '--fail-severity=warn', '--ruleset', '.spectral.yaml', path],
      { timeout: 120_000 },
    )
    assert.equal(stdout.trim(), "No results with a severity of 'warn' or higher found!")
  })
})
