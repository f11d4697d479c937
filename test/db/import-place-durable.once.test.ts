// An import into a new SQLite file puts the loaded file in place under the target's name, then flushes the
// directory before the import says it is done: a crash just after does not take the imported shop back out.
import assert from 'node:assert/strict'
import fs, { existsSync, writeFileSync } from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { importPlace } from '../../src/db/move-session.js'
import { makeTempDir } from '../helpers/temp.js'

describe('the place of an import into a new SQLite file', () => {
  const original = { openSync: fs.openSync, fsyncSync: fs.fsyncSync }
  after(() => {
    Object.assign(fs, original)
    syncBuiltinESMExports()
  })

  it('is published under the target name, and the directory flushed after', () => {
    const directory = makeTempDir()
    const target = join(directory, 'petstore.db')
    const place = importPlace({ kind: 'sqlite', path: target })
    assert.equal(place.database.kind, 'sqlite')
    const loading = place.database.kind === 'sqlite' ? place.database.path : ''
    assert.match(loading, /\/\.petstore\.db\.\d+\.partial$/)
    writeFileSync(loading, 'the loaded shop')
    const opened = new Map<number, string>()
    const synced: string[] = []
    fs.openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
      const descriptor = (original.openSync as (...args: unknown[]) => number)(path, ...rest)
      opened.set(descriptor, String(path))
      return descriptor
    }) as typeof fs.openSync
    fs.fsyncSync = (descriptor: number) => {
      synced.push(opened.get(descriptor) ?? 'another file')
      original.fsyncSync(descriptor)
    }
    syncBuiltinESMExports()
    place.publish()
    assert.deepEqual(synced, [directory])
    assert.deepEqual([existsSync(target), existsSync(loading)], [true, false])
  })
})
