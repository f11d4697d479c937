// A SQLite database file this user may not read or write (copied in as root, restored with the wrong owner), in a
// directory it may write to: every command names the file and its mode, not the directory, and exits 1.
import assert from 'node:assert/strict'
import { chmodSync, copyFileSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { runCli } from '../helpers/process.js'
import { NobodyTraversal, UNPRIVILEGED } from '../helpers/nobody.js'
import { makeTempDir } from '../helpers/temp.js'

describe('a database file this user may not write or read', () => {
  const directory = makeTempDir()
  const data = join(directory, 'data')
  const source = join(directory, 'source.db')
  const user = UNPRIVILEGED
  const traversal = new NobodyTraversal()
  before(async () => {
    const migrated = await runCli(['migrate'], { DATABASE_URL: `file:${source}` })
    assert.equal(migrated.code, 0, migrated.stderr)
    mkdirSync(data)
    chmodSync(directory, 0o755)
    chmodSync(data, 0o777)
    traversal.open(process.cwd())
    traversal.open(directory)
  })
  after(() => {
    traversal.restore()
    rmSync(directory, { recursive: true, force: true })
  })

  /** A copy of the migrated database with `mode`, owned by whoever runs the test (root: not the command's user). */
  function databaseWithMode(name: string, mode: number): string {
    const file = join(data, name)
    copyFileSync(source, file)
    chmodSync(file, mode)
    return file
  }

  const line = (file: string, mode: string, reason: string) =>
    `petstore: cannot open the SQLite database ${file} (${reason}): the file is not readable and writable by this ` +
    `user (mode ${mode}); give the user the service runs as read and write access to it, or set ` +
    'DATABASE_URL=file:PATH to another database\n'

  it('read-only: keys create names the file and its mode', async () => {
    const file = databaseWithMode('read-only.db', 0o444)
    const result = await runCli(['keys', 'create', '--name', 'ci'], { DATABASE_URL: `file:${file}` }, user)
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.equal(
      result.stderr.split('\n').slice(1).join('\n'),
      line(file, '0444', 'attempt to write a readonly database'),
    )
  })

  it('read-only: serve names the file and its mode', async () => {
    const file = databaseWithMode('read-only-serve.db', 0o444)
    const result = await runCli(['serve'], { DATABASE_URL: `file:${file}`, LOG_LEVEL: 'warn', PORT: '0' }, user)
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr: line(file, '0444', 'attempt to write a readonly database'),
    })
  })

  it('unreadable: keys list names the file and its mode', async () => {
    const file = databaseWithMode('unreadable.db', 0o000)
    const result = await runCli(['keys', 'list'], { DATABASE_URL: `file:${file}` }, user)
    assert.equal(result.code, 1)
    assert.equal(result.stderr.split('\n').slice(1).join('\n'), line(file, '0000', 'unable to open database file'))
  })
})
