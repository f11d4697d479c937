// `petstore serve` started while another process holds its SQLite file for writing (another instance migrating a
// large shop, an import): it waits for the lock, says so in its log after each busy time-out, and starts once the
// lock is released. It used to end after one busy time-out (5 s) with "the SQLite database … is locked".
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { cliArguments } from '../helpers/cli-path.js'
import { waitUntilServing } from '../helpers/process.js'
import { makeTempDir } from '../helpers/temp.js'

const WAITING =
  'is held for writing by another process (another instance migrating it, an import, a petstore command): ' +
  'waiting for it before migrating'

describe('petstore serve beside a process that holds the SQLite file for writing', () => {
  const directory = makeTempDir()
  after(() => rmSync(directory, { recursive: true, force: true }))

  it('waits for the lock, logging each busy time-out spent, then migrates and serves', async () => {
    const path = join(directory, 'petstore.db')
    const holder = new SqliteDatabase(path)
    holder.pragma('journal_mode = WAL')
    holder.exec('begin immediate')
    const child = spawn(process.execPath, cliArguments(['serve']), {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: `file:${path}`, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const exited = new Promise((resolve) => child.once('exit', resolve))
    try {
      const waitLines = () =>
        output
          .split('\n')
          .filter((line) => line.includes(WAITING))
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      // Two busy time-outs of 5 s: the service is still waiting after the first, where it used to give up.
      for (let tries = 0; waitLines().length < 2; tries++) {
        assert.ok(tries < 300 && child.exitCode === null, `serve did not wait for the lock: ${output}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      const [first, second] = waitLines()
      assert.deepEqual(
        { level: first?.level, msg: first?.msg },
        { level: 40, msg: `the SQLite database ${path} ${WAITING}` },
      )
      // SQLite's busy wait is at least its 5 s each time, and a loaded machine may add to it: at least 5 and 10 s.
      const [once, twice] = [Number(first?.waitedSeconds), Number(second?.waitedSeconds)]
      assert.ok(once >= 5 && twice >= 10 && twice > once, JSON.stringify({ once, twice }))
      assert.equal(holder.prepare("select count(*) from sqlite_master where name = 'pets'").pluck().get(), 0)

      holder.exec('rollback')
      const baseUrl = await waitUntilServing(child, () => output)
      const response = await fetch(`${baseUrl}/v1/pets`)
      assert.equal(response.status, 401)
      assert.equal(holder.prepare("select count(*) from sqlite_master where name = 'pets'").pluck().get(), 1)
    } finally {
      child.kill('SIGTERM')
      await exited
      holder.close()
    }
  })
})
