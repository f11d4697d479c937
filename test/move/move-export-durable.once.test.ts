// An export into a file replaces an earlier one only once the new one is on disk: its bytes are flushed before it
// takes the name, and the directory after, so that a crash (a power cut after the nightly backup) leaves the
// earlier export or the whole new one at the path, never an empty file in its place.
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import { readFileSync, writeFileSync } from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { exportTarget, shopFileWriter } from '../../src/move/writer.js'
import { makeTempDir } from '../helpers/temp.js'

describe('an export into a file', () => {
  const original = { open: fs.open, rename: fs.rename }
  after(() => {
    Object.assign(fs, original)
    syncBuiltinESMExports()
  })

  it('flushes the new file before it replaces the earlier one, and the directory after', async () => {
    const directory = makeTempDir()
    const file = join(directory, 'shop.jsonl')
    writeFileSync(file, '{"format":"petstore-shop"} an earlier export\n')
    const steps: string[] = []
    const name = (path: unknown) =>
      String(path)
        .replace(directory, 'DIR')
        .replace(/\.\d+\.partial$/, '.PID.partial')
    fs.open = (async (...args: Parameters<typeof fs.open>) => {
      const handle = await original.open(...args)
      const sync = handle.sync.bind(handle)
      handle.sync = async () => {
        steps.push(`sync ${name(args[0])}`)
        await sync()
      }
      return handle
    }) as typeof fs.open
    fs.rename = (async (from: Parameters<typeof fs.rename>[0], to: Parameters<typeof fs.rename>[1]) => {
      steps.push(`rename ${name(from)} to ${name(to)}`)
      await original.rename(from, to)
    }) as typeof fs.rename
    syncBuiltinESMExports()

    const writer = shopFileWriter(exportTarget(file))
    await writer.write('{"format":"petstore-shop"}\n')
    await writer.close((sha256) => `{"end":true,"sha256":"${sha256}"}\n`)
    assert.deepEqual(steps, [
      'sync DIR/.shop.jsonl.PID.partial',
      'rename DIR/.shop.jsonl.PID.partial to DIR/shop.jsonl',
      'sync DIR',
    ])
    assert.match(readFileSync(file, 'utf8'), /^\{"format":"petstore-shop"\}\n\{"end":true,"sha256":"[0-9a-f]{64}"\}\n$/)
  })
})
