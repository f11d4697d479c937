// SIGTERM or SIGINT (Ctrl-C) in the middle of petstore export or import: the command stops with exit 1 and one
// line saying so, and leaves nothing behind: no partial export file (it holds secrets), no database file the
// import created.
import assert from 'node:assert/strict'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import SqliteDatabase from 'better-sqlite3'
import { migrateToLatest } from '../../src/db/migrate.js'
import { openStore } from '../../src/db/store.js'
import { loadConfig } from '../../src/config.js'
import { cliArguments } from '../helpers/cli-path.js'
import { makeTempDir } from '../helpers/server.js'

const directory = makeTempDir()
const database = join(directory, 'source.db')

/** Loaded before the command, so that it writes its progress as it does when a person watches stderr. */
const STDERR_AS_TERMINAL = ['--import', 'data:text/javascript,process.stderr.isTTY = true']

function start(
  args: string[],
  url: string,
  nodeArguments: string[] = [],
): { child: ChildProcess; ended: Promise<[number | null, string]>; stderr: () => string } {
  const child = spawn(process.execPath, [...nodeArguments, ...cliArguments(args)], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: url },
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
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe('petstore export and import stopped by a signal', () => {
  before(async () => {
    const store = openStore(loadConfig({ DATABASE_URL: `file:${database}` }))
    try {
      await migrateToLatest(store.admin)
    } finally {
      await store.close()
    }
    // Enough rows that the export is still writing when the signal comes.
    const handle = new SqliteDatabase(database)
    const insert = handle.prepare("insert into pets (name, category_id, status) values (?, 1, 'available')")
    handle.transaction(() => {
      for (let i = 0; i < 400_000; i++) insert.run(`Pet ${i} ${'x'.repeat(60)}`)
    })()
    handle.close()
  })

  it('export into a named pipe nobody reads: SIGTERM ends it, with exit 1 and its line', async () => {
    // A small shop, so that the whole export fits in what the stream holds: the export then waits for the pipe's
    // reader to finish it, not for room to write.
    const small = join(directory, 'small.db')
    const store = openStore(loadConfig({ DATABASE_URL: `file:${small}` }))
    try {
      await migrateToLatest(store.admin)
    } finally {
      await store.close()
    }
    const pipe = join(directory, 'pipe')
    execFileSync('mkfifo', [pipe])
    const { child, ended, stderr } = start(['export', pipe], `file:${small}`)
    // Once the command has started (from the sources, that alone can take more than a second on a busy machine),
    // time to read the shop and reach the pipe, which no one opens.
    await until(() => stderr().includes('petstore: using SQLite database'))
    await new Promise((resolve) => setTimeout(resolve, 1000))
    child.kill('SIGTERM')
    const outcome = await Promise.race([ended, sleep(10_000, 'still running' as const, { ref: false })])
    if (outcome === 'still running') child.kill('SIGKILL')
    assert.deepEqual(outcome, [
      1,
      `petstore: using SQLite database ${small}\npetstore: export interrupted by SIGTERM\n`,
    ])
  })

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`export: ${signal} removes the partial file`, async () => {
      const file = join(directory, `shop-${signal}.jsonl`)
      const { child, ended } = start(['export', file], `file:${database}`)
      await until(() => readdirSync(directory).some((name) => name.endsWith('.partial')))
      child.kill(signal)
      const [code, stderr] = await ended
      assert.equal(code, 1)
      assert.equal(
        stderr.split('\n').slice(1).join('\n'),
        `petstore: export interrupted by ${signal}: no file written\n`,
      )
      assert.deepEqual(
        readdirSync(directory).filter((name) => name.includes('shop')),
        [],
      )
    })

    it(`export on a terminal: ${signal} clears the progress line before saying so`, async () => {
      const file = join(directory, `shop-terminal-${signal}.jsonl`)
      const { child, ended, stderr } = start(['export', file], `file:${database}`, STDERR_AS_TERMINAL)
      await until(() => stderr().includes('petstore: exporting pets: '))
      child.kill(signal)
      const [code, output] = await ended
      assert.equal(code, 1)
      assert.ok(output.includes('\rpetstore: exporting pets: '), 'the progress was shown')
      // The progress line is overwritten in place: it is cleared before the last line, not followed by it.
      const clearedLine = output.slice(output.lastIndexOf('\u001b[K') - 1)
      assert.equal(clearedLine, `\r\u001b[Kpetstore: export interrupted by ${signal}: no file written\n`)
    })

    it(`import: ${signal} while the file is still coming removes the database it created`, async () => {
      const target = join(directory, `target-${signal}.db`)
      const { child, ended } = start(['import', '-'], `file:${target}`)
      // The header, and nothing more yet: the import waits for the rest, as from a slow pipe.
      child.stdin?.write(
        '{"format":"petstore-shop","formatVersion":1,"schemaVersion":"0015_webhook_pending_events",' +
          '"sourceStore":"sqlite","exportedAt":"2026-11-27T00:00:00.000Z"}\n',
      )
      // Loaded under a name of its own beside the target until it is committed.
      await until(() => readdirSync(directory).some((name) => name.startsWith(`.target-${signal}.db.`)))
      await new Promise((resolve) => setTimeout(resolve, 300))
      child.kill(signal)
      const [code, stderr] = await ended
      assert.equal(code, 1)
      assert.equal(
        stderr.split('\n').slice(1).join('\n'),
        `petstore: import interrupted by ${signal}, nothing changed\n`,
      )
      assert.deepEqual(
        readdirSync(directory).filter((name) => name.includes('target')),
        [],
      )
    })
  }
})
