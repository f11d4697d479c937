// A static key's id (logs, metrics, rate limits, Idempotency-Key records) is its own, whatever else is listed
// beside it and in whatever order, and the same in every process and version: records keyed by it outlive a
// restart, an upgrade and a change of the list.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { createAuthenticator } from '../../src/keys/authenticator.js'
import { staticKeyId } from '../../src/keys/static-key-id.js'
import { TEST_API_KEY } from '../helpers/server.js'

const SECOND_KEY = 'second-static-key-0123456789'

function keyIdsOf(staticKeys: string[]) {
  const authenticator = createAuthenticator({
    data: undefined as never,
    readVersion: undefined,
    staticKeys,
    onError: () => undefined,
  })
  return staticKeys.map((key) => authenticator.staticKey(key, undefined)?.keyId)
}

describe('a static key id', () => {
  it('is derived from the key alone: the same beside other keys, in any order', () => {
    assert.deepEqual(keyIdsOf([TEST_API_KEY, SECOND_KEY]), [staticKeyId(TEST_API_KEY), staticKeyId(SECOND_KEY)])
    assert.deepEqual(keyIdsOf([SECOND_KEY]), [staticKeyId(SECOND_KEY)])
    assert.deepEqual(keyIdsOf([SECOND_KEY, TEST_API_KEY]), [staticKeyId(SECOND_KEY), staticKeyId(TEST_API_KEY)])
  })

  it('stays what it was in earlier versions (records stored under it must still be found)', () => {
    assert.equal(staticKeyId(TEST_API_KEY), 'static-1003bb3aaad92f3c')
    assert.equal(staticKeyId(SECOND_KEY), 'static-2eb75e8404cd0969')
  })

  it('shows nothing of the key or of its SHA-256', () => {
    for (const key of [TEST_API_KEY, SECOND_KEY]) {
      const id = staticKeyId(key)
      assert.match(id, /^static-[0-9a-f]{16}$/)
      const digest = createHash('sha256').update(key).digest('hex')
      assert.ok(!digest.includes(id.slice('static-'.length, 'static-'.length + 8)))
      assert.ok(!id.includes(key.slice(0, 4)))
    }
  })
})
