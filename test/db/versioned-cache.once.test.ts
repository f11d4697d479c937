// VersionedCache keeps loaded values while the data version stays the same. With keepOnSecondLoad it keeps a value
// only from its key's second load under one version: what a key read once costs is a load, never a kept value.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { VersionedCache } from '../../src/db/versioned-cache.js'

/** A cache over a version the test sets, and a loader that counts its calls per key. */
function cacheFor(options?: { keepOnSecondLoad?: boolean }, maxEntries?: number) {
  let version = 1
  const loads: string[] = []
  const cache = new VersionedCache<string>(async () => version, maxEntries, options)
  const get = (key: string) =>
    cache.get(key, async () => {
      loads.push(key)
      return `${key}@${version}`
    })
  return { get, loads, commit: () => (version += 1) }
}

describe('VersionedCache', () => {
  it('keeps a value from its first load by default', async () => {
    const { get, loads } = cacheFor()
    assert.deepEqual([await get('a'), await get('a'), await get('a')], ['a@1', 'a@1', 'a@1'])
    assert.deepEqual(loads, ['a'])
  })

  it('with keepOnSecondLoad, loads a key twice and answers the third read from the cache', async () => {
    const { get, loads } = cacheFor({ keepOnSecondLoad: true })
    assert.deepEqual(
      [await get('a'), await get('b'), await get('a'), await get('a'), await get('b')],
      ['a@1', 'b@1', 'a@1', 'a@1', 'b@1'],
    )
    assert.deepEqual(loads, ['a', 'b', 'a', 'b'])
    assert.equal(await get('b'), 'b@1')
    assert.deepEqual(loads, ['a', 'b', 'a', 'b'])
  })

  it('with keepOnSecondLoad, forgets the keys loaded once when the version changes', async () => {
    const { get, loads, commit } = cacheFor({ keepOnSecondLoad: true })
    await get('a')
    commit()
    // The load under version 1 does not count: this is the first load under version 2, so it is not kept.
    assert.equal(await get('a'), 'a@2')
    assert.equal(await get('a'), 'a@2')
    assert.equal(await get('a'), 'a@2')
    assert.deepEqual(loads, ['a', 'a', 'a'])
  })

  it('with keepOnSecondLoad, drops the kept values and the keys loaded once at a commit', async () => {
    const { get, loads, commit } = cacheFor({ keepOnSecondLoad: true })
    await get('a')
    await get('a')
    assert.equal(await get('a'), 'a@1')
    commit()
    assert.equal(await get('a'), 'a@2')
    assert.deepEqual(loads, ['a', 'a', 'a'])
  })

  it('with keepOnSecondLoad, remembers at most maxEntries keys loaded once', async () => {
    const { get, loads } = cacheFor({ keepOnSecondLoad: true }, 2)
    await get('a')
    await get('b')
    // The third key loaded once makes room by forgetting the first two: `a` counts as loaded once again.
    await get('c')
    await get('a')
    assert.deepEqual(loads, ['a', 'b', 'c', 'a'])
    assert.equal(await get('a'), 'a@1')
    assert.deepEqual(loads, ['a', 'b', 'c', 'a', 'a'])
    assert.equal(await get('a'), 'a@1')
    assert.deepEqual(loads, ['a', 'b', 'c', 'a', 'a'])
  })

  describe('getFresh, whose loads learn the version themselves', () => {
    /** A loader that tells the version only when the cache would keep what it loads, as PostgreSQL's does. */
    function freshCacheFor(options?: { keepOnSecondLoad?: boolean }) {
      let version = 1
      const loads: Array<[string, boolean]> = []
      const cache = new VersionedCache<string>(async () => version, undefined, options)
      const get = (key: string) =>
        cache.getFresh(key, async (wouldKeep) => {
          loads.push([key, wouldKeep])
          return { value: `${key}@${version}`, version: wouldKeep ? version : undefined }
        })
      return { get, loads, commit: () => (version += 1) }
    }

    it('asks every load for the version, and keeps the first, by default', async () => {
      const { get, loads } = freshCacheFor()
      assert.deepEqual([await get('a'), await get('a')], ['a@1', 'a@1'])
      assert.deepEqual(loads, [['a', true]])
    })

    it('with keepOnSecondLoad, loads a key first without the version, then with it, and then keeps it', async () => {
      const { get, loads } = freshCacheFor({ keepOnSecondLoad: true })
      assert.deepEqual([await get('a'), await get('b'), await get('a'), await get('a')], ['a@1', 'b@1', 'a@1', 'a@1'])
      assert.deepEqual(loads, [
        ['a', false],
        ['b', false],
        ['a', true],
      ])
    })

    it('with keepOnSecondLoad, drops the kept value at a commit, keeps the new one from its second load', async () => {
      const { get, loads, commit } = freshCacheFor({ keepOnSecondLoad: true })
      await get('a')
      await get('a')
      commit()
      assert.deepEqual([await get('a'), await get('a'), await get('a'), await get('a')], ['a@2', 'a@2', 'a@2', 'a@2'])
      assert.deepEqual(loads, [
        ['a', false],
        ['a', true],
        ['a', false],
        ['a', true],
      ])
    })

    it('with keepOnSecondLoad, does not keep a first load that brought a version anyway', async () => {
      const loads: string[] = []
      const cache = new VersionedCache<string>(async () => 1, undefined, { keepOnSecondLoad: true })
      // As a PostgreSQL batch answers when another of its callers asked for the version.
      const get = (key: string) =>
        cache.getFresh(key, async () => {
          loads.push(key)
          return { value: `${key}@1`, version: 1 }
        })
      assert.deepEqual([await get('a'), await get('a'), await get('a')], ['a@1', 'a@1', 'a@1'])
      assert.deepEqual(loads, ['a', 'a'])
    })

    it('keeps nothing a load answered without a version, and keeps what it had', async () => {
      let version = 1
      const loads: string[] = []
      const cache = new VersionedCache<string>(async () => version)
      const get = (key: string, versioned: boolean) =>
        cache.getFresh(key, async () => {
          loads.push(key)
          return { value: `${key}@${version}`, version: versioned ? version : undefined }
        })
      assert.equal(await get('kept', true), 'kept@1')
      assert.deepEqual([await get('a', false), await get('a', false)], ['a@1', 'a@1'])
      assert.equal(await get('kept', true), 'kept@1')
      assert.deepEqual(loads, ['kept', 'a', 'a'])
      version += 1
      assert.equal(await get('a', false), 'a@2')
      assert.equal(await get('kept', true), 'kept@2')
      assert.deepEqual(loads, ['kept', 'a', 'a', 'a', 'kept'])
    })
  })
})
