// Event ids survive a restore into another PostgreSQL cluster: a dump of the service's schema (pg_dump | psql)
// into a cluster this test starts itself (initdb in a temporary folder, as the postgres user, on a free port),
// whose transaction ids start again from the beginning. A new change's event there takes the next id after the
// last restored one, and a reader waiting after that last id receives it.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { followUntil, readFeed, readWholeFeed, type Get } from '../helpers/events.js'
import type { Pet } from '../helpers/orders.js'
import { freePort, spawnServer, type ServerProcess } from '../helpers/process.js'
import { createTestDatabase, urlForSchema, type TestDatabase } from '../helpers/store.js'

const run = promisify(execFile)
const BIN = '/usr/lib/postgresql/15/bin'
const KEY = 'postgres-restore-static-key-0123'

/** Runs a PostgreSQL program as the postgres user (the server refuses to run as root). */
const asPostgres = (program: string, args: string[]) =>
  run('runuser', ['-u', 'postgres', '--', join(BIN, program), ...args], { maxBuffer: 64 * 1024 * 1024 })

const get =
  (instance: ServerProcess): Get =>
  (path, init = {}) =>
    fetch(instance.baseUrl + path, {
      ...init,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    })

async function createPet(instance: ServerProcess, name: string): Promise<Pet> {
  const response = await get(instance)('/v1/pets', { method: 'POST', body: JSON.stringify({ name, categoryId: 1 }) })
  assert.equal(response.status, 201)
  return (await response.json()) as Pet
}

describe('event ids after a dump restored into another PostgreSQL cluster', () => {
  let database: TestDatabase
  let folder: string
  let port: number
  let started = false
  const instances: ServerProcess[] = []

  before(async () => {
    database = await createTestDatabase()
    folder = mkdtempSync(join(tmpdir(), 'petstore-cluster-'))
    chmodSync(folder, 0o700)
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: group } = await run('id', ['-g', 'postgres'])
    chownSync(folder, Number(stdout.trim()), Number(group.trim()))
    await asPostgres('initdb', ['-D', join(folder, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync'])
    port = await freePort()
    await asPostgres('pg_ctl', [
      '-D',
      join(folder, 'data'),
      '-l',
      join(folder, 'log'),
      '-o',
      `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off`,
      '-w',
      'start',
    ])
    started = true
  })
  after(async () => {
    for (const instance of instances) {
      if (instance.child.exitCode === null) instance.child.kill('SIGTERM')
      await instance.exited
    }
    if (started) await asPostgres('pg_ctl', ['-D', join(folder, 'data'), '-m', 'fast', '-w', 'stop'])
    if (folder) rmSync(folder, { recursive: true, force: true })
    await database?.drop()
  })

  it("gives a new change's event the next id after the restored ones, and a reader waiting after them \
gets it", async () => {
    const old = await spawnServer({ DATABASE_URL: database.url, PETSTORE_API_KEYS: KEY })
    instances.push(old)
    for (const name of ['Ada', 'Bo', 'Cy']) await createPet(old, name)
    // Numbering follows the commit: the last create's event may be listed a moment after its 201, so the feed is
    // followed until it is there.
    const before = await followUntil(get(old), 0, (event) => 'pet' in event.data && event.data.pet.name === 'Cy')
    const last = before.at(-1)?.id ?? 0
    assert.equal(before.length, 3)
    old.child.kill('SIGTERM')
    assert.equal(await old.exited, 0)

    // The usual restore: the schema's dump, played into the new cluster by psql.
    const schema = new URL(database.url).searchParams.get('options')?.replace('-c search_path=', '') ?? ''
    const serverUrl = process.env.TEST_DATABASE_URL ?? ''
    const { stdout: dump } = await run('pg_dump', ['--schema', schema, '--no-owner', serverUrl], {
      maxBuffer: 64 * 1024 * 1024,
    })
    const newServer = `postgres://postgres@127.0.0.1:${port}/postgres`
    await new Promise<void>((resolve, reject) => {
      const psql = execFile('psql', ['-v', 'ON_ERROR_STOP=1', '-q', newServer], (error) =>
        error ? reject(error) : resolve(),
      )
      psql.stdin?.end(dump)
    })

    const restored = await spawnServer({ DATABASE_URL: urlForSchema(newServer, schema), PETSTORE_API_KEYS: KEY })
    instances.push(restored)
    assert.deepEqual(await readWholeFeed(get(restored)), before, 'the restored events, with their ids')
    const waiting = readFeed(get(restored), `after=${last}&wait=10`)
    const pet = await createPet(restored, 'Dee')
    const { events } = await waiting
    assert.deepEqual(
      events.map((event) => [event.id, event.type, event.data]),
      [[last + 1, 'pet.created', { pet }]],
    )
  })
})
