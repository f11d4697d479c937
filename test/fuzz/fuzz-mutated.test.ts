// Schema-driven fuzzing, mutated requests, through Fastify's inject: valid requests from the served OpenAPI
// document with one to three hostile changes (wrong types, huge and negative integers, 2^53+1, 2^63, NaN-like
// and naughty strings, NUL bytes, lone surrogates, deep nesting, duplicate parameters, odd content types,
// empty bodies, prototype keys). No answer may be a 5xx or break the documented schema for its status.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { mutatedRequest } from '../helpers/fuzz-mutations.js'
import { describeRequest, validRequest, type FuzzRequest } from '../helpers/fuzz-requests.js'
import {
  assertNoPollution,
  FUZZ_SEED,
  FuzzStats,
  inProcessFuzzer,
  loadFuzzTarget,
  prototypeSnapshot,
  type FuzzTarget,
} from '../helpers/fuzz-run.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const MUTATED_RUNS = 10_000

describe(`schema-driven fuzzing in process, mutated requests (seed ${FUZZ_SEED})`, () => {
  let server: TestServer
  let target: FuzzTarget
  const prototypes = prototypeSnapshot()

  before(async () => {
    // Long polls answer at once: thousands of requests cannot each wait for an event.
    server = await startTestServer({ env: { LOG_LEVEL: 'warn' }, tuning: { eventWaitMaxSeconds: 0 } })
    target = await loadFuzzTarget(server)
  })
  after(() => server.close())

  it(`answers ${MUTATED_RUNS} mutated requests without a 5xx, each with a documented status and body`, async (t) => {
    const stats = await inProcessFuzzer(server, target).run(
      fc.oneof(...target.operations.map((operation) => mutatedRequest(operation, target.context))),
      MUTATED_RUNS,
    )
    t.diagnostic(`mutated: ${stats.summary()}`)
    assert.equal(stats.requests, MUTATED_RUNS)
    stats.assertCoverage(target.operations)
  })

  it('refuses prototype-polluting bodies and queries on every operation, and pollutes nothing', async () => {
    const bodies = [
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"a":{"__proto__":{"x":1}}}',
      '[{"__proto__":{"x":1}}]',
      '{"\\u005f_proto__":{"x":1}}',
      '{"constructor":{"prototype":{"polluted":1}},"__proto__":{"polluted":1}}',
    ]
    const queries = ['__proto__[x]=1', '__proto__.x=1', 'constructor[prototype][x]=1', '__proto__=x', 'constructor=x']
    const stats = new FuzzStats()
    const fuzzer = inProcessFuzzer(server, target)
    for (const operation of target.operations) {
      const base = fc.sample(validRequest(operation, target.context), { seed: FUZZ_SEED, numRuns: 1 })[0] as FuzzRequest
      const requests: FuzzRequest[] = [
        ...bodies.map((body) => ({
          ...base,
          body,
          headers: { ...base.headers, 'content-type': 'application/json' },
          mutations: ['body: prototype keys'],
        })),
        ...queries.map((rawQuery) => ({ ...base, rawQuery, mutations: ['query: prototype keys'] })),
      ]
      for (const request of requests) {
        const response = await fuzzer.exchange(request, stats)
        // A body is read only by operations that take one; a query is validated by every operation.
        if (request.mutations[0] === 'query: prototype keys' || (operation.body && operation.method !== 'GET'))
          assert.equal(response.status, 400, describeRequest(request, target.prefix))
      }
    }
    assertNoPollution(prototypes)
  })

  it('left every prototype as it was', () => {
    assertNoPollution(prototypes)
  })
})
