// The SQLite data version is read once per event-loop turn for all the requests of that turn, and always
// after them: a version read before a request was received could miss a commit that request must see.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readVersionPerTurn } from '../src/db/read-version-per-turn.js'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe('readVersionPerTurn', () => {
  it('reads once for every caller of one turn, after all of them asked', async () => {
    let version = 1
    let reads = 0
    const read = readVersionPerTurn(() => {
      reads++
      return version
    })
    const first = read()
    // A commit after the first caller asked but within the same turn: every caller of the turn must see it.
    version = 2
    const others = [read(), read(), read()]
    assert.equal(reads, 0, 'not read while the turn is still receiving requests')
    assert.deepEqual(await Promise.all([first, ...others]), [2, 2, 2, 2])
    assert.equal(reads, 1)
  })

  it('reads again for a caller that asks after the read', async () => {
    let version = 7
    let reads = 0
    const read = readVersionPerTurn(() => {
      reads++
      return version
    })
    assert.equal(await read(), 7)
    version = 8
    assert.equal(await read(), 8)
    assert.equal(reads, 2)

    // Asking from within the check phase, just after a read of that phase, waits for the next read.
    await nextTurn()
    const [late] = await new Promise<Promise<number>[]>((resolve) => {
      void read().then(() => {
        version = 9
        resolve([read()])
      })
    })
    assert.equal(await late, 9)
    assert.equal(reads, 4)
  })

  it('gives every caller of the turn the error of a failed read, and reads afresh afterwards', async () => {
    let fail = true
    const read = readVersionPerTurn(() => {
      if (fail) throw new Error('disk I/O error')
      return 3
    })
    const results = await Promise.allSettled([read(), read()])
    assert.deepEqual(results.map((result) => result.status), ['rejected', 'rejected'])
    assert.deepEqual(results.map((result) => result.status === 'rejected' && (result.reason as Error).message), ['disk I/O error', 'disk I/O error'])
    fail = false
    assert.equal(await read(), 3)
  })
})
