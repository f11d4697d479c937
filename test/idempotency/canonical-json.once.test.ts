// The text a request's identity is hashed from: equal values give equal text, however their JSON was spelt. The
// HTTP tests reach only what JSON can carry; a property left undefined (which JSON cannot carry, but a body or
// parameters built in code can) is checked here.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { canonicalJson, requestFingerprint } from '../../src/idempotency/fingerprint.js'

describe('the canonical JSON of an Idempotency-Key request', () => {
  it('sorts object keys at every level and keeps the order of arrays', () => {
    assert.equal(canonicalJson({ b: [2, { d: 1, c: null }], a: 'x' }), '{"a":"x","b":[2,{"c":null,"d":1}]}')
  })

  it('writes a property left undefined as if it were absent, and undefined itself as null', () => {
    assert.equal(canonicalJson({ a: 1, b: undefined }), canonicalJson({ a: 1 }))
    assert.equal(canonicalJson({ a: 1, b: undefined }), '{"a":1}')
    assert.equal(canonicalJson(undefined), 'null')
  })

  it('gives a body with a property left undefined the fingerprint of the body without it', () => {
    const identity = { method: 'PATCH', route: '/v1/pets/:petId', params: { petId: 1 } }
    assert.equal(
      requestFingerprint({ ...identity, body: { name: 'Rex', status: undefined } }),
      requestFingerprint({ ...identity, body: { name: 'Rex' } }),
    )
  })
})
