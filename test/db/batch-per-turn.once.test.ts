// Gets by key asked for in one event-loop turn are loaded together, after all of them asked; a key asked
// for after the load started waits for a load of its own (it might miss a commit made before it asked).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { batchPerTurn } from '../../src/db/batch-per-turn.js'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe('batchPerTurn', () => {
  it('loads the keys of one turn in one call, each once, and answers every caller its own value', async () => {
    const loads: number[][] = []
    const get = batchPerTurn(async (keys: number[]) => {
      loads.push(keys)
      return new Map(keys.filter((key) => key !== 404).map((key) => [key, `pet ${key}`]))
    })
    const answers = Promise.all([get(1), get(2), get(1), get(404), get(3)])
    assert.equal(loads.length, 0, 'not loaded while the turn is still receiving requests')
    assert.deepEqual(await answers, ['pet 1', 'pet 2', 'pet 1', undefined, 'pet 3'])
    assert.deepEqual(loads, [[1, 2, 404, 3]])
  })

  it('loads again for a key asked for once the load of its turn has started', async () => {
    let stored = 'before'
    const loads: string[][] = []
    const get = batchPerTurn(async (keys: string[]) => {
      loads.push(keys)
      const seen = stored // what the query's snapshot holds: taken when the load starts
      await nextTurn()
      return new Map(keys.map((key) => [key, seen]))
    })
    const first = get('a')
    await nextTurn()
    stored = 'after' // committed after the first load started, before the second caller asked
    const second = get('a')
    assert.deepEqual([await first, await second], ['before', 'after'])
    assert.deepEqual(loads, [['a'], ['a']])
  })

  it('gives every caller of a failed load its error, and loads afresh afterwards', async () => {
    let fail = true
    const get = batchPerTurn(async (keys: number[]) => {
      if (fail) throw new Error('Connection terminated')
      return new Map(keys.map((key) => [key, key * 10]))
    })
    const results = await Promise.allSettled([get(1), get(2)])
    assert.deepEqual(
      results.map((result) => result.status === 'rejected' && (result.reason as Error).message),
      ['Connection terminated', 'Connection terminated'],
    )
    fail = false
    assert.equal(await get(2), 20)
  })

  it('tells the load whether any ask of its batch was marked, and starts the next batch unmarked', async () => {
    const loads: Array<[number[], boolean]> = []
    const get = batchPerTurn(async (keys: number[], anyMarked) => {
      loads.push([keys, anyMarked])
      return new Map(keys.map((key) => [key, key]))
    })
    assert.deepEqual(await Promise.all([get(1), get(2, true), get(3)]), [1, 2, 3])
    assert.deepEqual(await Promise.all([get(4), get(5, false)]), [4, 5])
    assert.deepEqual(loads, [
      [[1, 2, 3], true],
      [[4, 5], false],
    ])
  })
})
