// Rate limits in memory across a step of the wall clock (an NTP correction, a virtual machine resumed): windows
// are timed by the monotonic clock, so a step back an hour neither refuses a key or an address for that hour
// nor answers a Retry-After beyond the window.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { issueApiKey } from '../../../src/keys/issue-key.js'
import { assertError } from '../../helpers/error-assert.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { stepWallClock } from '../../helpers/wall-clock.js'

const HOUR_MS = 3_600_000
const WRONG_KEY = 'pst_wrongwrongwrongwrongwrongwrongwrongwrong1'

describe('rate limits across a step of the wall clock', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({
      env: { RATE_LIMIT_PER_KEY: '2', RATE_LIMIT_ANONYMOUS: '2', TRUST_PROXY: '127.0.0.1' },
    })
  })
  after(async () => {
    stepWallClock(0)
    await server.close()
  })

  /** Refused with the window's own Retry-After (59 or 60 s), never one stretched by the step. */
  async function assertRefusedForTheWindow(response: Response, message: (retryAfter: number) => string) {
    const retryAfter = Number(response.headers.get('retry-after'))
    assert.ok(retryAfter >= 59 && retryAfter <= 60, String(retryAfter))
    await assertError(
      response,
      { status: 429, code: 'rate_limited', message: message(retryAfter) },
      {
        'ratelimit-policy': '"default";q=2;w=60',
        ratelimit: `"default";r=0;t=${retryAfter}`,
        'retry-after': String(retryAfter),
      },
    )
  }

  it('refuses a key over quota for what is left of its window after the clock steps back an hour', async () => {
    const { key } = await issueApiKey(server.store, 'clock-step')
    for (const expected of [200, 200, 429])
      assert.equal((await server.request('/v1/pets', { auth: key })).status, expected)
    stepWallClock(-HOUR_MS)
    try {
      await assertRefusedForTheWindow(
        await server.request('/v1/pets', { auth: key }),
        (retryAfter) => `This API key has used its 2 requests per 60 s; retry in ${retryAfter} s.`,
      )
    } finally {
      stepWallClock(0)
    }
  })

  it('refuses an address over its anonymous quota for what is left of its window after the step', async () => {
    const wrongKey = {
      auth: false,
      headers: { authorization: `Bearer ${WRONG_KEY}`, 'x-forwarded-for': '203.0.113.9' },
    }
    for (const expected of [401, 401, 429]) assert.equal((await server.request('/v1/pets', wrongKey)).status, expected)
    stepWallClock(-HOUR_MS)
    try {
      await assertRefusedForTheWindow(
        await server.request('/v1/pets', wrongKey),
        (retryAfter) =>
          `Too many requests without a valid API key from this address (2 per 60 s); retry in ${retryAfter} s.`,
      )
    } finally {
      stepWallClock(0)
    }
  })
})
