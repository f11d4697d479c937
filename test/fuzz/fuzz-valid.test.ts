// Schema-driven fuzzing, valid requests, through Fastify's inject (the same hooks, validation and
// serialisation as a socket): requests generated from the served OpenAPI document's parameters and bodies,
// every response checked by an oracle compiled from the same document, every 201 read back. Seeded, so a
// failure reproduces; the seed is in every message. Mutated requests: fuzz-mutated.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { formatsUsed } from '../helpers/fuzz-document.js'
import { ORACLE_FORMATS } from '../helpers/fuzz-oracle.js'
import { validRequest } from '../helpers/fuzz-requests.js'
import {
  assertNoPollution,
  FUZZ_SEED,
  inProcessFuzzer,
  loadFuzzTarget,
  prototypeSnapshot,
  type FuzzTarget,
} from '../helpers/fuzz-run.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

// One request at a time, each write waiting for its durable commit: about 18 ms a request on SQLite and 11 ms on
// PostgreSQL here. 3,000 (from 5,000) keeps the whole of CI within its 20 minutes on two cores; every operation
// is still drawn about 150 times.
const VALID_RUNS = 3_000

describe(`schema-driven fuzzing in process, valid requests (seed ${FUZZ_SEED})`, () => {
  let server: TestServer
  let target: FuzzTarget
  const prototypes = prototypeSnapshot()

  before(async () => {
    // Long polls answer at once: thousands of requests cannot each wait for an event.
    server = await startTestServer({ env: { LOG_LEVEL: 'warn' }, tuning: { eventWaitMaxSeconds: 0 } })
    target = await loadFuzzTarget(server)
  })
  after(() => server.close())

  it('knows every format the document uses, so no schema is checked only in part', () => {
    assert.deepEqual(
      [...formatsUsed(target.document)].filter((format) => !ORACLE_FORMATS.includes(format)),
      [],
    )
  })

  it('has an oracle that refuses what the service must not send (so the runs below can fail)', () => {
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      'x-request-id': 'r',
    }
    for (const operation of target.operations) {
      const error = (status: number, body: unknown = { code: 'invalid_request', message: 'x', status }) => ({
        status,
        headers,
        body: JSON.stringify(body),
      })
      assert.deepEqual(target.oracle.check(operation, operation.method, error(400)), [], operation.operationId)
      assert.notDeepEqual(
        target.oracle.check(
          operation,
          operation.method,
          error(500, { code: 'internal_error', message: 'x', status: 500 }),
        ),
        [],
      )
      assert.notDeepEqual(target.oracle.check(operation, operation.method, error(418)), [], 'an undocumented status')
      assert.notDeepEqual(
        target.oracle.check(
          operation,
          operation.method,
          error(400, { code: 'invalid_request', message: 'x', status: 404 }),
        ),
        [],
        'status mismatch',
      )
      assert.notDeepEqual(
        target.oracle.check(operation, operation.method, error(400, { code: 'bad', message: 'x', status: 400 })),
        [],
        'unknown code',
      )
      assert.notDeepEqual(
        target.oracle.check(operation, operation.method, {
          ...error(400),
          headers: { ...headers, 'cache-control': 'public' },
        }),
        [],
      )
      assert.notDeepEqual(
        target.oracle.check(operation, operation.method, {
          ...error(400),
          headers: { ...headers, 'x-powered-by': 'x' },
        }),
        [],
      )
      const success = Object.keys(operation.responses).find((status) => status.startsWith('2')) ?? '200'
      assert.notDeepEqual(
        target.oracle.check(operation, operation.method, {
          status: Number(success),
          headers,
          body: '{"unexpected":true}',
        }),
        [],
        operation.operationId,
      )
    }
  })

  it(`answers ${VALID_RUNS} valid requests across every documented operation as documented, and every \
201 round-trips`, async (t) => {
    const stats = await inProcessFuzzer(server, target).run(
      fc.oneof(...target.operations.map((operation) => validRequest(operation, target.context))),
      VALID_RUNS,
    )
    t.diagnostic(`valid: ${stats.summary()}`)
    assert.equal(stats.requests, VALID_RUNS)
    stats.assertCoverage(target.operations)
    assert.ok(stats.roundTrips > 0, 'some valid requests created something')
  })

  it('left every prototype as it was', () => {
    assertNoPollution(prototypes)
  })
})
