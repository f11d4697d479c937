// The data version is read once per event-loop turn for all the requests of that turn, and always after
// them: a version read before a request was received could miss a commit that request must see. SQLite reads
// it synchronously; PostgreSQL over the network, where a read in flight must not answer later callers.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readRemoteVersionPerTurn, readVersionPerTurn } from '../../src/db/read-version-per-turn.js'

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
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'rejected'],
    )
    assert.deepEqual(
      results.map((result) => result.status === 'rejected' && (result.reason as Error).message),
      ['disk I/O error', 'disk I/O error'],
    )
    fail = false
    assert.equal(await read(), 3)
  })
})

/** A version source over the network whose reads the test answers one by one. */
function remoteSource() {
  const reads: Array<{ resolve: (version: number) => void; reject: (error: Error) => void }> = []
  let inFlight = 0
  let mostInFlight = 0
  const read = readRemoteVersionPerTurn(() => {
    inFlight++
    mostInFlight = Math.max(mostInFlight, inFlight)
    return new Promise<number>((resolve, reject) =>
      reads.push({
        resolve: (version) => {
          inFlight--
          resolve(version)
        },
        reject: (error) => {
          inFlight--
          reject(error)
        },
      }),
    )
  })
  return { read, reads, mostInFlight: () => mostInFlight }
}

describe('readRemoteVersionPerTurn', () => {
  it('sends one read for every caller of one turn, after all of them asked', async () => {
    const source = remoteSource()
    const callers = [source.read(), source.read(), source.read()]
    assert.equal(source.reads.length, 0, 'not sent while the turn is still receiving requests')
    await nextTurn()
    assert.equal(source.reads.length, 1)
    source.reads[0]?.resolve(5)
    assert.deepEqual(await Promise.all(callers), [5, 5, 5])
  })

  it('makes a caller who asks while a read is in flight wait for the next read, sent after the first \
answered', async () => {
    const source = remoteSource()
    const early = source.read()
    await nextTurn()
    assert.equal(source.reads.length, 1)
    // Asked after the first read was sent: that read may predate a commit this caller must see.
    const late = [source.read(), source.read()]
    await nextTurn()
    assert.equal(source.reads.length, 1, 'no second read while one is in flight')
    source.reads[0]?.resolve(1)
    assert.equal(await early, 1)
    // The next read is sent in a check phase after the answer's callbacks have run.
    await nextTurn()
    await nextTurn()
    assert.equal(source.reads.length, 2)
    source.reads[1]?.resolve(2)
    assert.deepEqual(await Promise.all(late), [2, 2])
    assert.equal(source.mostInFlight(), 1)
  })

  it('gives every caller of a failed read its error, and reads afresh afterwards', async () => {
    const source = remoteSource()
    const failing = Promise.allSettled([source.read(), source.read()])
    await nextTurn()
    source.reads[0]?.reject(new Error('Connection terminated'))
    const results = await failing
    assert.deepEqual(
      results.map((result) => result.status === 'rejected' && (result.reason as Error).message),
      ['Connection terminated', 'Connection terminated'],
    )
    const next = source.read()
    await nextTurn()
    source.reads[1]?.resolve(9)
    assert.equal(await next, 9)
  })
})
