// What /metrics tells, and to whom: static keys are labelled by their scrypt-derived ids (never the key nor its
// digest), and METRICS_TOKEN keeps the metrics to the scraper that has it.
import { staticKeyId } from '../../../src/keys/static-key-id.js'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../../helpers/error-assert.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

const SECOND_KEY = 'second-static-key-0123456789'
const METRICS_TOKEN = 'metrics-token-0123456789abcdef'
const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

describe('/metrics with METRICS_TOKEN set', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { METRICS_TOKEN, PETSTORE_API_KEYS: `${TEST_API_KEY},${SECOND_KEY}` } })
  })
  after(() => server.close())

  it('keeps scripts of other origins out whatever the answer: 401 without the token, 405 for a POST', async () => {
    const origin = { origin: 'https://page.example' }
    const refusals = [
      await server.request('/metrics', { auth: false, headers: origin }),
      await server.request('/metrics', { method: 'POST', auth: false, headers: origin }),
    ]
    assert.deepEqual(
      refusals.map((response) => [
        response.status,
        response.headers.get('access-control-allow-origin'),
        response.headers.get('access-control-expose-headers'),
      ]),
      [
        [401, null, null],
        [405, null, null],
      ],
    )
    for (const response of refusals) await response.arrayBuffer()
  })

  it('answers 401 with the Error body and WWW-Authenticate without the token, or with another scheme', async () => {
    // RFC 6750 section 3.1: another authentication method gets the challenge without an error code.
    const withoutToken: Record<string, string>[] = [
      {},
      { authorization: `Basic ${METRICS_TOKEN}` },
      { authorization: METRICS_TOKEN },
    ]
    for (const headers of withoutToken) {
      await assertError(
        await server.request('/metrics', { auth: false, headers }),
        {
          status: 401,
          code: 'unauthorized',
          message: 'The metrics need a token: send Authorization: Bearer <METRICS_TOKEN>.',
        },
        { 'www-authenticate': 'Bearer realm="metrics"' },
      )
    }
  })

  it('answers 401 invalid_token to a wrong token, an API key, a token prefix or no token', async () => {
    for (const authorization of [
      `Bearer ${METRICS_TOKEN}x`,
      `Bearer ${METRICS_TOKEN.slice(0, -1)}`,
      `Bearer ${TEST_API_KEY}`,
      'Bearer',
    ]) {
      await assertError(
        await server.request('/metrics', { auth: false, headers: { authorization } }),
        {
          status: 401,
          code: 'unauthorized',
          message: 'The metrics token is not valid.',
        },
        {
          'www-authenticate':
            'Bearer realm="metrics", error="invalid_token", error_description="The metrics token is not valid"',
        },
      )
    }
  })

  it('answers the scraper that sends the token', async () => {
    const response = await server.request('/metrics', { auth: METRICS_TOKEN })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), METRICS_CONTENT_TYPE)
    const text = await response.text()
    assert.match(text, /^# TYPE http_requests_total counter$/m)
    assert.match(text, /^# TYPE process_cpu_seconds_total counter$/m)
    // The scheme is case-insensitive (RFC 6750 section 2.1).
    const lowerCase = await server.request('/metrics', {
      auth: false,
      headers: { authorization: `bearer ${METRICS_TOKEN}` },
    })
    assert.equal(lowerCase.status, 200)
    await lowerCase.arrayBuffer()
  })

  it('labels static keys by their own ids, never with the key or its digest', async () => {
    for (const key of [TEST_API_KEY, SECOND_KEY, SECOND_KEY]) {
      const response = await server.request('/v1/pets/987654', { auth: key })
      assert.equal(response.status, 404)
      await response.arrayBuffer()
    }
    const text = await (await server.request('/metrics', { auth: METRICS_TOKEN })).text()
    const lines = text
      .split('\n')
      .filter((line) => line.startsWith('petstore_deprecated_operation_calls_total{'))
      .sort()
    assert.deepEqual(
      lines,
      [
        `petstore_deprecated_operation_calls_total{operation="getPet",key_id="${staticKeyId(TEST_API_KEY)}"} 1`,
        `petstore_deprecated_operation_calls_total{operation="getPet",key_id="${staticKeyId(SECOND_KEY)}"} 2`,
      ].sort(),
    )
    for (const key of [TEST_API_KEY, SECOND_KEY]) {
      const digest = createHash('sha256').update(key).digest('hex')
      assert.ok(!text.includes(digest.slice(0, 8)), 'no digest prefix of a key in the metrics')
    }
  })
})

describe('/metrics without METRICS_TOKEN', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('is open, as before, whatever Authorization says', async () => {
    for (const auth of [false, 'anything-at-all-0123456789']) {
      const response = await server.request('/metrics', { auth })
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('content-type'), METRICS_CONTENT_TYPE)
      await response.arrayBuffer()
    }
  })

  it('is not readable by a script of another origin, while the API is', async () => {
    const origin = { origin: 'https://page.example' }
    const metrics = await server.request('/metrics', { auth: false, headers: origin })
    assert.equal(metrics.status, 200)
    assert.equal(metrics.headers.get('access-control-allow-origin'), null)
    assert.equal(metrics.headers.get('access-control-expose-headers'), null)
    await metrics.arrayBuffer()
    const pets = await server.request('/v1/pets', { headers: origin })
    assert.equal(pets.status, 200)
    assert.equal(pets.headers.get('access-control-allow-origin'), '*')
    await pets.arrayBuffer()
  })
})
