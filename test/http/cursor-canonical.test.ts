// A cursor is accepted only as the exact text the service issued. Node's base64 decoder skips characters it
// cannot read and ignores the unused low bits of the last character, so before the fix a signed cursor with
// junk after its signature (`=`, `!`, a space…) or a neighbouring last character decoded to the same
// signature and was accepted.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../helpers/error-assert.js'
import { nextLink } from '../helpers/link.js'
import { addPet, placeOrder } from '../helpers/orders.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const INVALID_CURSOR = {
  status: 400,
  code: 'invalid_request',
  message: 'The cursor is not valid: use the Link header of a previous page unchanged.',
  details: [{ path: 'query/cursor', message: 'is not a cursor this service issued' }],
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** The same text with its last character's lowest (unused) bit flipped: it decodes to the same bytes. */
function flipLastBit(text: string): string {
  const last = BASE64URL.indexOf(text.at(-1) ?? '')
  assert.ok(last >= 0)
  return text.slice(0, -1) + BASE64URL[last ^ 1]
}

/** Variants of a genuine cursor that Buffer.from(…, 'base64url') reads as the same payload and signature. */
function lookAlikes(cursor: string): string[] {
  const [payload = '', signature = ''] = cursor.split('.')
  assert.equal(
    Buffer.from(flipLastBit(signature), 'base64url').toString('hex'),
    Buffer.from(signature, 'base64url').toString('hex'),
  )
  return [
    `${cursor}=`,
    `${cursor}==`,
    `${cursor}!`,
    `${cursor}~`,
    `${cursor} `,
    `${cursor}\n`,
    `${cursor}!!!%`,
    `${payload}.${flipLastBit(signature)}`,
    `${payload}=.${signature}`,
    `${payload}!.${signature}`,
  ]
}

describe('cursors with anything beyond the issued text are refused', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
    for (let index = 0; index < 3; index++)
      await placeOrder(server, { petId: (await addPet(server, 'available', `pet-${index}`)).id })
  })
  after(() => server.close())

  for (const [list, path] of [
    ['pets', '/v1/pets'],
    ['orders', '/v1/store/orders'],
  ] as const) {
    it(`GET ${path} (${list})`, async () => {
      const next = nextLink(await server.request(`${path}?limit=1`))
      assert.ok(next)
      const cursor = new URL(next).searchParams.get('cursor') ?? ''
      // The genuine cursor still works.
      const genuine = await server.request(`${path}?limit=1&cursor=${encodeURIComponent(cursor)}`)
      assert.equal(genuine.status, 200)
      assert.equal((await genuine.json()).length, 1)
      for (const bad of lookAlikes(cursor)) {
        await assertError(await server.request(`${path}?limit=1&cursor=${encodeURIComponent(bad)}`), INVALID_CURSOR)
      }
    })
  }
})
