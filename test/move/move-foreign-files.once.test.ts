// petstore import given something that is not a shop file, as an operator mistypes a path: the backup still
// gzip-compressed, the SQLite database itself, some other text, a device, a directory. Refused with exit 1 and one line
// that says what the file is, and no database file is left behind.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { before, describe, it } from 'node:test'
import { petstore } from '../helpers/move.js'
import { makeTempDir } from '../helpers/temp.js'

const directory = makeTempDir()
const database = join(directory, 'source.db')
const exported = join(directory, 'shop.jsonl')

describe('petstore import of a file that is not a petstore export', () => {
  before(async () => {
    assert.equal((await petstore(['migrate'], { DATABASE_URL: `file:${database}` })).code, 0)
    assert.equal((await petstore(['export', exported], { DATABASE_URL: `file:${database}` })).code, 0)
  })

  const NOT_AN_EXPORT = 'the file is not a petstore export (its first line is not a petstore-shop header)'
  const CASES: { name: string; file: () => string; cause: (file: string) => string }[] = [
    {
      name: 'a gzip-compressed export',
      file: () => {
        const file = join(directory, 'shop.jsonl.gz')
        writeFileSync(file, gzipSync(readFileSync(exported)))
        return file
      },
      cause: (file) => `the file is gzip-compressed: decompress it first (gunzip -c ${file} | petstore import -)`,
    },
    { name: 'a SQLite database', file: () => database, cause: () => NOT_AN_EXPORT },
    {
      // A copy cut off in the middle of a line (a full disk, a dropped connection): truncated, not "not JSON".
      name: 'an export cut off mid-line',
      file: () => {
        const file = join(directory, 'cut.jsonl')
        const text = readFileSync(exported, 'utf8')
        writeFileSync(file, text.slice(0, text.indexOf('\n', text.indexOf('\n') + 1) + 20))
        return file
      },
      cause: () => 'the file is truncated: it ends in the middle of line 3',
    },
    {
      name: 'some other text',
      file: () => {
        const file = join(directory, 'notes.txt')
        writeFileSync(file, 'root:x:0:0:root:/root:/bin/bash\n')
        return file
      },
      cause: () => NOT_AN_EXPORT,
    },
    {
      // No line break ever: read as one line, it would pass V8's limit on a string's length (a crash, before).
      name: 'a device that never ends a line',
      file: () => '/dev/zero',
      cause: () => NOT_AN_EXPORT,
    },
    {
      name: 'a directory',
      file: () => {
        const folder = join(directory, 'backups')
        mkdirSync(folder)
        return folder
      },
      cause: (file) => `${file} is a directory: name a file written by petstore export`,
    },
  ]

  for (const { name, file, cause } of CASES) {
    it(`${name}: says what it is, and creates no database`, async () => {
      const target = join(directory, `target-${name.replaceAll(' ', '-')}.db`)
      const path = file()
      const result = await petstore(['import', path], { DATABASE_URL: `file:${target}` })
      assert.equal(result.code, 1)
      assert.equal(result.stdout, '')
      assert.equal(
        result.stderr.split('\n').slice(1).join('\n'),
        `petstore: import refused, nothing changed: ${cause(path)}\n`,
      )
      assert.equal(existsSync(target), false)
    })
  }
})
