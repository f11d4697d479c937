// A pet's name must show something and must not reorder how the text around it is displayed: names made only
// of white space and invisible format characters, and names holding a bidirectional override or isolate, are
// refused by the schema (so by every operation that validates a name); joiners inside emoji stay allowed.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../helpers/error-assert.js'
import { VISIBLE_NAME_RULE as RULE } from '../helpers/pets.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const INVALID_NAME = {
  status: 400,
  code: 'invalid_request',
  message: `Invalid request: body/name ${RULE}`,
  details: [{ path: 'body/name', message: RULE }],
}

describe('pet names: something visible, no bidirectional controls', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  async function allPets(): Promise<unknown[]> {
    const response = await server.request('/v1/pets?limit=100')
    assert.equal(response.status, 200)
    return response.json()
  }

  // The JSON text of each name, escapes as sent: exactly these code points reach the service.
  const refused: [string, string][] = [
    ['a zero-width space alone', '"\\u200B"'],
    ['a right-to-left override alone', '"\\u202E"'],
    ['a right-to-left override between letters', '"a\\u202Eb"'],
    ['a left-to-right isolate around a letter', '"\\u2066x\\u2069"'],
    ['spaces around a zero-width space', '"  \\u200B "'],
    ['a left-to-right embedding (U+202A) after a letter', '"Rex\\u202A"'],
    ['a pop directional isolate (U+2069) after a letter', '"Rex\\u2069"'],
    ['a Hangul filler (U+3164, invisible)', '"\\u3164"'],
    ['a no-break space and a word joiner', '"\\u00A0\\u2060"'],
    ['a line separator', '"\\u2028"'],
  ]
  for (const [title, name] of refused) {
    it(`refuses ${title}, stores nothing`, async () => {
      const before = await allPets()
      const response = await server.request('/v1/pets', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"name":${name},"categoryId":1}`,
      })
      await assertError(response, INVALID_NAME)
      assert.deepEqual(await allPets(), before)
    })
  }

  const accepted = ['Rex', '🐕', 'a\u200Db', '👩\u200D👧', ' Rex ', 'e\u0301', 'زهرة', 'a\u200Cb', 'Rex\u200B']
  for (const name of accepted) {
    it(`accepts ${JSON.stringify(name)} and stores it unchanged`, async () => {
      const response = await server.request('/v1/pets', { json: { name, categoryId: 1 } })
      assert.equal(response.status, 201)
      const pet = await response.json()
      assert.equal(pet.name, name)
      assert.deepEqual(await (await server.request(`/v1/pets/${pet.id}`)).json(), pet)
    })
  }
})
