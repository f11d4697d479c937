// Micro-benchmark of the JSON body parser's work per request, before and after strict bodies (UTF-8 checked,
// duplicate keys refused): `npx tsx bench/json-parse.ts`. Each line is the median of several rounds, in
// nanoseconds per body and bodies per second on one core. Only the CPU work of the parser is measured: reading
// the socket and routing are the same before and after.
import { isUtf8 } from 'node:buffer'
import Fastify from 'fastify'
import { findJsonProblem } from '../src/http/json/json-scan.js'
import { decodeUtf8 } from '../src/http/json/utf8.js'

const BODIES: Record<string, string> = {
  NewPet: '{"name":"Rex","categoryId":7,"status":"available"}',
  'NewPet, non-ASCII name': '{"name":"Zoë the 🐕","categoryId":7,"status":"pending"}',
  NewOrder: '{"petId":1234,"quantity":2,"shipDate":"2026-05-01T10:00:00+02:00"}',
  // Not a request the API accepts, but what the parser must get through before the schema refuses it: 400
  // objects in one, near the 16 KiB body limit.
  'large object': JSON.stringify(
    Object.fromEntries(Array.from({ length: 400 }, (_, index) => [`key${index}`, { n: index, s: 'x'.repeat(8) }])),
  ),
}

const ROUNDS = 7
const TARGET_ROUND_NS = 100_000_000n

// The parser Fastify gives the service (secure-json-parse), called synchronously.
const defaultParse = Fastify().getDefaultJsonParser('error', 'error')
function secureParse(text: string): unknown {
  let result: unknown
  defaultParse(undefined as never, text, (error: Error | null, value: unknown) => {
    if (error) throw error
    result = value
  })
  return result
}

// Before: the body was decoded without checking (invalid bytes became U+FFFD) and numbers were checked with a
// regular-expression scan (the code json-scan.ts replaced).
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g
const PLAIN_INTEGER = /^-?\d+$/
function findInexactNumberBefore(json: string): string | undefined {
  for (const [token] of json.matchAll(STRING_OR_NUMBER)) {
    if (token.startsWith('"')) continue
    const value = Number(token)
    if (!Number.isFinite(value)) return token
    if (Number.isInteger(value) && !(PLAIN_INTEGER.test(token) && Number.isSafeInteger(value))) return token
  }
  return undefined
}

const CANDIDATES: Record<string, (bytes: Buffer) => unknown> = {
  'before: toString + parse + number regex': (bytes) => {
    const text = bytes.toString('utf8')
    const value = secureParse(text)
    return findInexactNumberBefore(text) ?? value
  },
  'after: strict decode + parse + one-pass scan': (bytes) => {
    const text = decodeUtf8(bytes)
    if (text === undefined) throw new Error('not UTF-8')
    const value = secureParse(text)
    return findJsonProblem(text) ?? value
  },
  'part: toString (no check)': (bytes) => bytes.toString('utf8'),
  'part: isUtf8 + toString': (bytes) => (isUtf8(bytes) ? bytes.toString('utf8') : undefined),
  'part: TextDecoder fatal (after)': (bytes) => decodeUtf8(bytes),
  'part: secure-json-parse': (bytes) => secureParse(bytes.toString('utf8')),
  'part: number regex (before)': (bytes) => findInexactNumberBefore(bytes.toString('utf8')),
  'part: one-pass scan (after)': (bytes) => findJsonProblem(bytes.toString('utf8')),
}

let sink: unknown

function measure(run: (bytes: Buffer) => unknown, bytes: Buffer): number {
  // Calibrate the iteration count to about 100 ms a round.
  let iterations = 1_000
  for (;;) {
    const start = process.hrtime.bigint()
    for (let index = 0; index < iterations; index++) sink = run(bytes)
    const elapsed = process.hrtime.bigint() - start
    if (elapsed >= TARGET_ROUND_NS / 4n) {
      iterations = Math.max(1, Math.round((iterations * Number(TARGET_ROUND_NS)) / Number(elapsed)))
      break
    }
    iterations *= 4
  }
  const perBody: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint()
    for (let index = 0; index < iterations; index++) sink = run(bytes)
    perBody.push(Number(process.hrtime.bigint() - start) / iterations)
  }
  perBody.sort((a, b) => a - b)
  return perBody[Math.floor(ROUNDS / 2)] as number
}

console.log(`node ${process.version}; median of ${ROUNDS} rounds of ~100 ms each`)
for (const [title, body] of Object.entries(BODIES)) {
  const bytes = Buffer.from(body)
  JSON.parse(body)
  console.log(`\n${title} (${bytes.length} bytes)`)
  for (const [name, run] of Object.entries(CANDIDATES)) {
    const nanoseconds = measure(run, bytes)
    console.log(
      `  ${name.padEnd(50)} ${nanoseconds.toFixed(0).padStart(8)} ns  ${Math.round(1e9 / nanoseconds)
        .toLocaleString('en')
        .padStart(12)} /s`,
    )
  }
}
void sink
