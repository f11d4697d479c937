// Where petstore export may write: a new file, or an earlier export it replaces once the new one is whole. A file
// that is not a petstore export (the database itself, named by a slip of the keyboard) is refused and kept as it
// was; a named pipe or a device (/dev/stdout, a process substitution) is written into, never replaced by a file.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  closeSync,
  copyFileSync,
  createReadStream,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { petstore, shopContents } from '../helpers/move.js'
import { NobodyTraversal, UNPRIVILEGED } from '../helpers/nobody.js'
import { makeTempDir, startTestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'

const directory = makeTempDir()

describe('the target of petstore export', () => {
  let source: TestDatabase
  before(async () => {
    source = await createTestDatabase('sqlite')
    const server = await startTestServer({ database: source })
    try {
      for (const name of ['Rex', 'Tom']) await server.request('/v1/pets', { json: { name, categoryId: 3 } })
    } finally {
      await server.close()
    }
  })
  after(async () => {
    await source.drop()
  })

  it('refuses to replace a file that is not a petstore export, such as the database itself', async () => {
    const database = join(directory, 'copy.db')
    copyFileSync(fileURLToPath(source.url.replace(/^file:/, 'file://')), database)
    const before = readFileSync(database)
    const result = await petstore(['export', database], { DATABASE_URL: `file:${database}` })
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.equal(
      result.stderr.split('\n').slice(1).join('\n'),
      `petstore: ${database} exists and is not a petstore export: name a new file, or remove this one first\n`,
    )
    assert.deepEqual(readFileSync(database), before)
    assert.match(await shopContents(`file:${database}`, join(directory, 'copy.jsonl')), /"name":"Tom"/)
  })

  it('replaces an earlier export, and an empty file', async () => {
    const file = join(directory, 'nightly.jsonl')
    const first = await petstore(['export', file], { DATABASE_URL: source.url })
    assert.equal(first.code, 0, first.stderr)
    const again = await petstore(['export', file], { DATABASE_URL: source.url })
    assert.equal(again.code, 0, again.stderr)
    const empty = join(directory, 'empty.jsonl')
    writeFileSync(empty, '')
    const intoEmpty = await petstore(['export', empty], { DATABASE_URL: source.url })
    assert.equal(intoEmpty.code, 0, intoEmpty.stderr)
    assert.match(readFileSync(empty, 'utf8'), /"name":"Rex"/)
  })

  it('says in one line that a full device or a closed standard output cut the export short', async () => {
    const full = await petstore(['export', '/dev/full'], { DATABASE_URL: source.url })
    assert.deepEqual(
      { code: full.code, last: full.stderr.split('\n').slice(1).join('\n') },
      { code: 1, last: 'petstore: cannot write the export to /dev/full (no space left): the export is incomplete\n' },
    )
    assert.equal(lstatSync('/dev/full').isCharacterDevice(), true)
    const closed = await petstore(['export', '-'], { DATABASE_URL: source.url }, { closeStdout: true })
    assert.deepEqual(
      { code: closed.code, last: closed.stderr.split('\n').slice(1).join('\n') },
      {
        code: 1,
        last:
          'petstore: cannot write the export to standard output (its reader closed it first): the export is ' +
          'incomplete\n',
      },
    )
  })

  it('writes /dev/stdout into the file standard output was sent to, appending after a log', async () => {
    const log = join(directory, 'backup.log')
    writeFileSync(log, 'nightly backup\n')
    const mode = lstatSync(log).mode
    for (const name of ['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1']) {
      const descriptor = openSync(log, 'a')
      const result = await petstore(['export', name], { DATABASE_URL: source.url }, { stdoutInto: descriptor })
      closeSync(descriptor)
      assert.deepEqual(
        { code: result.code, last: result.stderr.split('\n').slice(1).join('\n') },
        { code: 0, last: 'petstore: exported 8 rows (2 pets) to stdout\n' },
        name,
      )
    }
    const [first, ...exports] = readFileSync(log, 'utf8').split(/(?=\{"format":"petstore-shop")/)
    assert.equal(first, 'nightly backup\n')
    assert.equal(exports.length, 3)
    for (const shop of exports) {
      assert.match(shop, /"name":"Tom"/)
      assert.match(shop, /"end":true.*\n$/)
    }
    assert.equal(lstatSync(log).mode, mode)
  })

  it('writes into a named pipe and leaves it a pipe', { timeout: 60_000 }, async () => {
    const fifo = join(directory, 'shop.fifo')
    execFileSync('mkfifo', [fifo])
    let read = ''
    const reader = createReadStream(fifo, 'utf8').on('data', (chunk) => (read += String(chunk)))
    const ended = new Promise<void>((resolve) => reader.once('close', () => resolve()))
    const result = await petstore(['export', fifo], { DATABASE_URL: source.url })
    await ended
    assert.equal(result.code, 0, result.stderr)
    assert.equal(lstatSync(fifo).isFIFO(), true)
    assert.match(read, /^\{"format":"petstore-shop"/)
    assert.match(read, /"name":"Tom"/)
    assert.match(read, /"end":true/)
  })
})

describe('petstore export into a directory this user may not write to', () => {
  const directory = makeTempDir()
  const locked = join(directory, 'backups')
  const user = UNPRIVILEGED
  const traversal = new NobodyTraversal()
  const source = join(directory, 'source.db')
  before(async () => {
    assert.equal((await petstore(['migrate'], { DATABASE_URL: `file:${source}` })).code, 0)
    chmodSync(source, 0o666)
    mkdirSync(locked)
    chmodSync(directory, 0o777)
    chmodSync(locked, 0o555)
    traversal.open(process.cwd())
    traversal.open(directory)
  })
  after(() => {
    traversal.restore()
    chmodSync(locked, 0o755)
    rmSync(directory, { recursive: true, force: true })
  })

  it('names the file and the directory, not its temporary file', async () => {
    const file = join(locked, 'shop.jsonl')
    const result = await petstore(['export', file], { DATABASE_URL: `file:${source}` }, user)
    assert.equal(result.code, 1)
    assert.equal(
      result.stderr.split('\n').slice(1).join('\n'),
      `petstore: cannot create ${file} (permission denied): the directory ${locked} must be writable by this ` +
        'user; name a file in a directory it may write to, or - for stdout\n',
    )
    assert.deepEqual(readdirSync(locked), [])
  })

  it('refuses an existing file this user cannot read, and keeps it', async () => {
    const file = join(directory, 'earlier.jsonl')
    writeFileSync(file, '{"format":"petstore-shop"}\n')
    chmodSync(file, 0o000)
    const result = await petstore(['export', file], { DATABASE_URL: `file:${source}` }, user)
    chmodSync(file, 0o600)
    assert.equal(result.code, 1)
    assert.equal(
      result.stderr.split('\n').slice(1).join('\n'),
      `petstore: ${file} exists and this user cannot read it: name a new file, or remove this one first\n`,
    )
    assert.equal(readFileSync(file, 'utf8'), '{"format":"petstore-shop"}\n')
  })
})
