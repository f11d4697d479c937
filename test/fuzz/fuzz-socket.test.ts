// The slice of the schema-driven fuzzing that goes over a real socket: generated requests sent with fetch
// (Node's HTTP parser, the real keep-alive connection handling), and with raw bytes for what fetch cannot send
// (repeated headers, odd Content-Length and Transfer-Encoding, malformed heads, pipelining). Same oracle,
// same seed as the in-process fuzzing.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { mutatedRequest } from '../helpers/fuzz-mutations.js'
import { announcesMoreBody, exchangeRaw, rawCase, serialiseRaw } from '../helpers/fuzz-raw.js'
import {
  describeRequest,
  readOverFetch,
  sendOverFetch,
  validRequest,
  type FuzzRequest,
} from '../helpers/fuzz-requests.js'
import {
  assertNoPollution,
  assertProperty,
  checkExchange,
  FUZZ_SEED,
  FuzzStats,
  loadFuzzTarget,
  prototypeSnapshot,
  type FuzzTarget,
} from '../helpers/fuzz-run.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

const FETCH_RUNS = 400
const RAW_RUNS = 500
// Node's limit on the request line and headers together; a generated head beyond it is answered 431.
const HEADER_LIMIT_BYTES = 16 * 1024

describe(`schema-driven fuzzing over a real socket (seed ${FUZZ_SEED})`, () => {
  let server: TestServer
  let target: FuzzTarget
  const prototypes = prototypeSnapshot()

  before(async () => {
    // Long polls answer at once: thousands of requests cannot each wait for an event.
    server = await startTestServer({ env: { LOG_LEVEL: 'warn' }, tuning: { eventWaitMaxSeconds: 0 } })
    target = await loadFuzzTarget(server)
  })
  after(() => server.close())

  const requests = () =>
    fc.oneof(
      ...target.operations.map((operation) => validRequest(operation, target.context)),
      ...target.operations.map((operation) => mutatedRequest(operation, target.context)),
    )
  const readBack = (method: string, path: string) => readOverFetch(server.baseUrl, method, path, TEST_API_KEY)

  it(`answers ${FETCH_RUNS} generated requests sent with fetch as documented`, async (t) => {
    const stats = new FuzzStats()
    let valid = 0
    await assertProperty(
      fc.asyncProperty(requests(), async (request: FuzzRequest) => {
        if (request.mutations.length === 0) valid++
        await checkExchange(
          target,
          request,
          await sendOverFetch(server.baseUrl, request, target.prefix),
          readBack,
          stats,
        )
      }),
      FETCH_RUNS,
    )
    t.diagnostic(`fetch: ${valid} valid, ${FETCH_RUNS - valid} mutated; ${stats.summary()}`)
    stats.assertCoverage(target.operations, 0.3)
  })

  it(`answers ${RAW_RUNS} raw requests (repeated headers, odd framing, malformed heads, pipelining) with documented \
responses`, async (t) => {
    const stats = new FuzzStats()
    const host = new URL(server.baseUrl).host
    await assertProperty(
      fc.asyncProperty(rawCase(requests(), target.context, host), async ({ request, raw, pipelined }) => {
        const once = serialiseRaw(raw, !pipelined)
        const data = pipelined ? Buffer.concat([once, serialiseRaw(raw, true)]) : once
        const headBytes = once.length - raw.body.length
        const { responses, leftover } = await exchangeRaw(server.baseUrl, data, {
          head: raw.method === 'HEAD',
          endAfterWrite: announcesMoreBody(raw),
        })
        const context =
          `seed ${FUZZ_SEED}: ${describeRequest(request, target.prefix)}\nsent ` +
          `${JSON.stringify(data.toString('latin1').slice(0, 600))}`
        // A request the server cannot read to its end (a CONNECT tunnel, a body longer than the connection) may be
        // dropped without an answer; anything answered is answered completely.
        assert.equal(leftover, '', `an incomplete response: ${context}`)
        assert.ok(responses.length <= (pipelined ? 2 : 1), `more responses than requests: ${context}`)
        const oversized = headBytes > HEADER_LIMIT_BYTES - 256 ? { unrouted: [...(request.unrouted ?? []), 431] } : {}
        for (const response of responses)
          await checkExchange(target, { ...request, ...oversized }, response, readBack, stats)
      }),
      RAW_RUNS,
    )
    t.diagnostic(`raw: ${stats.summary()}`)
    assert.ok(stats.requests >= RAW_RUNS * 0.9, `${stats.requests} of ${RAW_RUNS} raw requests were answered`)
  })

  it('left every prototype as it was', () => {
    assertNoPollution(prototypes)
  })
})
