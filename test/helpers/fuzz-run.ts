// What every fuzz test shares: the target read from the served document, the per-exchange checks (oracle, the
// 201 round trip), the counts reported at the end, and the prototype-pollution snapshot.
import assert from 'node:assert/strict'
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import {
  apiPrefix,
  errorSchemaOf,
  isStream,
  operationsOf,
  type OpenApiDocument,
  type Operation,
} from './fuzz-document.js'
import { ResponseOracle, type ObservedResponse } from './fuzz-oracle.js'
import {
  describeRequest,
  readInProcess,
  sendInProcess,
  urlOf,
  type FuzzRequest,
  type RequestContext,
} from './fuzz-requests.js'
import { TEST_API_KEY, type TestServer } from './server.js'

/** Fixed, so CI is deterministic; a failure report names it together with fast-check's path to the counterexample. */
export const FUZZ_SEED = 42

/** Runs a property with the fixed seed; a failure reports fast-check's counterexample and the check that failed. */
export async function assertProperty<T>(property: fc.IAsyncPropertyWithHooks<T>, numRuns: number): Promise<void> {
  const details = await fc.check(property, { seed: FUZZ_SEED, numRuns })
  if (details.failed)
    throw new Error(`${fc.defaultReportMessage(details)}\n\nFailed check: ${String(details.errorInstance)}`)
}

export interface FuzzTarget {
  document: OpenApiDocument
  operations: Operation[]
  prefix: string
  oracle: ResponseOracle
  context: RequestContext
  /** The first 201 body answered for each Idempotency-Key, to check what a replay of it answers. */
  createdByIdempotencyKey: Map<string, string>
}

export async function loadFuzzTarget(server: TestServer): Promise<FuzzTarget> {
  const response = await server.request('/v1/openapi.json', { auth: false })
  assert.equal(response.status, 200)
  const document = (await response.json()) as OpenApiDocument
  // A stream's response never ends, and the fuzzers wait for the end of each: streams have tests of their own
  // (events-stream.test.ts).
  const operations = operationsOf(document).filter((operation) => !isStream(operation))
  assert.ok(operations.length > 0, 'the document has operations')
  const prefix = apiPrefix(document)
  return {
    document,
    operations,
    prefix,
    oracle: new ResponseOracle(errorSchemaOf(operations)),
    context: { prefix, apiKey: TEST_API_KEY },
    createdByIdempotencyKey: new Map(),
  }
}

/** The documented GET operation whose path template matches a concrete path, if any. */
function readerFor(target: FuzzTarget, path: string): Operation | undefined {
  return target.operations.find(
    (operation) =>
      operation.method === 'GET' &&
      new RegExp(`^${target.prefix}${operation.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
  )
}

type Send = (method: string, path: string) => Promise<ObservedResponse>

/**
 * A 201 must round-trip exactly: what the Location (or `{path}/{id}`) gives back equals the created resource,
 * and the resource holds what the request sent (date-times as the same instant), defaults where it sent nothing.
 */
async function roundTripProblems(
  target: FuzzTarget,
  request: FuzzRequest,
  response: ObservedResponse,
  send: Send,
): Promise<string[]> {
  const created = JSON.parse(response.body) as Record<string, unknown>
  // A retry with an Idempotency-Key already used is answered with the stored response (Idempotent-Replayed),
  // which must be the first answer exactly; the resource itself may have changed since.
  const key = request.headers['idempotency-key']
  if (response.headers['idempotent-replayed'] === 'true') {
    const first = key === undefined ? undefined : target.createdByIdempotencyKey.get(key)
    return first === undefined || first === response.body
      ? []
      : [`a replay answered ${response.body}, the first answer was ${first}`]
  }
  if (key !== undefined && !target.createdByIdempotencyKey.has(key))
    target.createdByIdempotencyKey.set(key, response.body)
  const documented = request.operation.responses['201']
  const location = response.headers.location
  if (documented?.headers.includes('location') && !location) return ['a 201 without the documented Location']
  const path = location ? new URL(location).pathname : `${target.prefix}${request.operation.path}/${String(created.id)}`
  const reader = readerFor(target, path)
  if (!reader) return [`no documented GET operation reads ${path}`]
  const readBack = await send('GET', path)
  const problems = target.oracle.check(reader, 'GET', readBack).map((problem) => `reading back ${path}: ${problem}`)
  // What only the 201 shows (a webhook's secret, shown once) is not read back.
  const readable = reader.responses['200']?.schema?.properties ?? {}
  const createdReadable = Object.fromEntries(Object.entries(created).filter(([name]) => name in readable))
  if (readBack.status !== 200 || !isDeepStrictEqual(JSON.parse(readBack.body), createdReadable)) {
    problems.push(`GET ${path} answered ${readBack.status} ${readBack.body}, not the created ${response.body}`)
  }
  let sent: unknown
  try {
    sent = JSON.parse(typeof request.body === 'string' ? request.body : '')
  } catch {
    return problems
  }
  if (sent === null || typeof sent !== 'object' || Array.isArray(sent)) return problems
  const properties = documented?.schema?.properties ?? {}
  const requestProperties = request.operation.body?.schema.properties ?? {}
  for (const [name, schema] of Object.entries(requestProperties)) {
    if (!(name in properties)) continue
    const given = (sent as Record<string, unknown>)[name] ?? schema.default
    if (given === undefined) continue
    const same =
      schema.format === 'date-time'
        ? Date.parse(String(given)) === Date.parse(String(created[name]))
        : schema.format === 'uri'
          ? new URL(String(given)).href === created[name] // stored as the WHATWG parser normalises it
          : isDeepStrictEqual(given, created[name])
    if (!same)
      problems.push(
        `created ${name} is ${JSON.stringify(created[name])}, but the request sent ${JSON.stringify(given)}`,
      )
  }
  return problems
}

export class FuzzStats {
  readonly perOperation = new Map<string, { requests: number; statuses: Map<number, number> }>()
  readonly mutations = new Map<string, number>()
  requests = 0
  roundTrips = 0

  record(request: FuzzRequest, response: ObservedResponse): void {
    this.requests++
    const entry = this.perOperation.get(request.operation.operationId) ?? {
      requests: 0,
      statuses: new Map<number, number>(),
    }
    entry.requests++
    entry.statuses.set(response.status, (entry.statuses.get(response.status) ?? 0) + 1)
    this.perOperation.set(request.operation.operationId, entry)
    for (const mutation of request.mutations) this.mutations.set(mutation, (this.mutations.get(mutation) ?? 0) + 1)
  }

  summary(): string {
    const operations = [...this.perOperation].map(
      ([name, { requests, statuses }]) =>
        `${name} ${requests} (${[...statuses]
          .sort(([a], [b]) => a - b)
          .map(([status, count]) => `${status}×${count}`)
          .join(' ')})`,
    )
    const mutations = [...this.mutations]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, count]) => `${name}×${count}`)
    return (
      `${this.requests} requests, ${this.roundTrips} 201 round trips; ` +
      `${operations.join('; ')}${mutations.length > 0 ? `; mutations: ${mutations.join(', ')}` : ''}`
    )
  }

  /** Every operation of the document got at least this share of an even split. */
  assertCoverage(operations: Operation[], minimumShare = 0.5): void {
    for (const operation of operations) {
      const requests = this.perOperation.get(operation.operationId)?.requests ?? 0
      assert.ok(
        requests >= (this.requests / operations.length) * minimumShare,
        `${operation.operationId} got only ${requests} of ${this.requests} requests`,
      )
    }
  }
}

/**
 * Whether a request target (origin-form or absolute-form) names a path under the API prefix, as the router reads it.
 */
function underPrefix(requestTarget: string, prefix: string): boolean {
  const path = requestTarget.replace(/^https?:\/\/.*?\//, '/').split('?')[0] ?? ''
  return path === prefix || path.startsWith(`${prefix}/`)
}

/** Checks one exchange; throws with the request, the response and every problem found. */
export async function checkExchange(
  target: FuzzTarget,
  request: FuzzRequest,
  response: ObservedResponse,
  send: Send,
  stats: FuzzStats,
): Promise<void> {
  stats.record(request, response)
  const unrouted = request.unrouted?.includes(response.status) === true
  const problems = unrouted
    ? target.oracle.checkUnrouted(
        response,
        request.method,
        request.unrouted ?? [],
        underPrefix(request.rawTarget ?? urlOf(request, target.prefix), target.prefix),
      )
    : target.oracle.check(request.operation, request.method, response)
  if (request.mutations.length === 0 && response.status === 400 && /"message":"Invalid request:/.test(response.body)) {
    problems.push(
      'a request the document calls valid was refused by schema validation: the document and the validator disagree',
    )
  }
  if (response.status === 201 && request.method !== 'HEAD' && problems.length === 0) {
    stats.roundTrips++
    problems.push(...(await roundTripProblems(target, request, response, send)))
  }
  assert.deepEqual(
    problems,
    [],
    `seed ${FUZZ_SEED}: ${describeRequest(request, target.prefix)}\nanswered ${response.status} ` +
      `${JSON.stringify(response.headers)}\n${response.body.slice(0, 500)}`,
  )
}

export function prototypeSnapshot(): Record<string, string[]> {
  return Object.fromEntries(
    [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((prototype) => [
      prototype.constructor.name,
      Object.getOwnPropertyNames(prototype).sort(),
    ]),
  )
}

export function assertNoPollution(before: Record<string, string[]>): void {
  assert.deepEqual(prototypeSnapshot(), before, 'no prototype gained or lost a property')
  const probe = {} as Record<string, unknown>
  for (const name of ['polluted', 'x', 'isAdmin']) assert.equal(probe[name], undefined, `({}).${name} is undefined`)
}

/** Sends generated requests through the server's inject (its hooks, validation and serialisation) and checks each. */
export function inProcessFuzzer(server: TestServer, target: FuzzTarget) {
  const readBack: Send = (method, path) => readInProcess(server.app, method, path, TEST_API_KEY)
  return {
    async exchange(request: FuzzRequest, stats: FuzzStats): Promise<ObservedResponse> {
      const response = await sendInProcess(server.app, request, target.prefix)
      await checkExchange(target, request, response, readBack, stats)
      return response
    },
    async run(arbitrary: fc.Arbitrary<FuzzRequest>, numRuns: number): Promise<FuzzStats> {
      const stats = new FuzzStats()
      await assertProperty(
        fc.asyncProperty(arbitrary, async (request) => {
          await this.exchange(request, stats)
        }),
        numRuns,
      )
      return stats
    },
  }
}
