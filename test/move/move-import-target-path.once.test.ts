// petstore import into a new SQLite file whose path runs through a file (DATABASE_URL=file:shop.jsonl/petstore.db,
// a slip of the operator's) is refused with the reason every command gives for such a path. The clean-up of the
// file it could not create used to fail in turn, and its "ENOTDIR … lstat '….partial'" took that reason's place.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { before, describe, it } from 'node:test'
import { petstore } from '../helpers/move.js'
import { makeTempDir } from '../helpers/temp.js'

const directory = makeTempDir()
const source = join(directory, 'source.db')
const exported = join(directory, 'shop.jsonl')

describe('petstore import into a SQLite path that runs through a file', () => {
  before(async () => {
    assert.equal((await petstore(['migrate'], { DATABASE_URL: `file:${source}` })).code, 0)
    assert.equal((await petstore(['export', exported], { DATABASE_URL: `file:${source}` })).code, 0)
  })

  it('names the file in the way, not its own temporary file', async () => {
    const target = join(exported, 'petstore.db')
    const result = await petstore(['import', exported], { DATABASE_URL: `file:${target}` })
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.equal(
      result.stderr,
      `petstore: using SQLite database ${target}\n` +
        `petstore: import refused, nothing changed: cannot open the SQLite database ${target}: ${exported} is a ` +
        'file, not a directory; set DATABASE_URL=file:PATH to a path whose directories are directories\n',
    )
  })
})
