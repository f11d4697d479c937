// Requests only a raw socket can send: repeated headers, odd framing (Content-Length and Transfer-Encoding),
// malformed header syntax, odd request targets, versions and methods, pipelining. Each response on the
// connection is read back (1xx interim responses skipped) for the oracle.
import fc from 'fast-check'
import { connect } from 'node:net'
import type { ObservedResponse } from './fuzz-oracle.js'
import { urlOf, type FuzzRequest, type RequestContext } from './fuzz-requests.js'

export interface RawRequest {
  method: string
  target: string
  version: string
  /** Header lines without line endings; their order is kept. */
  headers: string[]
  body: Buffer
  lineEnding: string
}

export interface RawCase {
  request: FuzzRequest
  raw: RawRequest
  /** Sends the request twice on one connection. */
  pipelined: boolean
  [fc.toStringMethod]?: () => string
}

export function toRaw(request: FuzzRequest, context: RequestContext, host: string): RawRequest {
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body)
  const headers = Object.entries(request.headers)
    .filter(([name]) => name !== 'content-length')
    .map(([name, value]) => `${name}: ${value}`)
  const length = request.headers['content-length'] ?? (body.length > 0 ? String(body.length) : undefined)
  return {
    method: request.method,
    target: urlOf(request, context.prefix),
    version: 'HTTP/1.1',
    headers: [`Host: ${host}`, ...headers, ...(length === undefined ? [] : [`Content-Length: ${length}`])],
    body,
    lineEnding: '\r\n',
  }
}

export function serialiseRaw(raw: RawRequest, close: boolean): Buffer {
  const { lineEnding: end } = raw
  const headers = [...raw.headers, ...(close ? ['Connection: close'] : [])]
  const head = `${raw.method} ${raw.target} ${raw.version}${end}${headers.map((line) => line + end).join('')}${end}`
  return Buffer.concat([Buffer.from(head, 'latin1'), raw.body])
}

type RawMutation = (
  raw: RawRequest,
  context: RequestContext,
) => fc.Arbitrary<{ raw: RawRequest; name: string; unrouted?: number[] }>

const without = (headers: string[], name: string) =>
  headers.filter((line) => !line.toLowerCase().startsWith(`${name}:`))
const ROUTE_CHANGED = [400, 401, 404, 405]

const RAW_MUTATIONS: RawMutation[] = [
  (raw, context) =>
    fc
      .constantFrom(
        `Authorization: Bearer ${context.apiKey}`,
        'Authorization: Bearer wrong-key-0123456789abcdef',
        'Content-Type: text/plain',
        'Content-Type: application/json',
        'X-Request-Id: second',
        'Host: other.example',
        `Content-Length: ${raw.body.length}`,
        `Content-Length: ${raw.body.length + 1}`,
        'Transfer-Encoding: chunked',
      )
      .chain((line) =>
        fc.boolean().map((first) => ({
          raw: { ...raw, headers: first ? [line, ...raw.headers] : [...raw.headers, line] },
          name: 'raw: duplicate header',
        })),
      ),
  (raw) =>
    fc
      .constantFrom(
        'chunked',
        'bad chunk',
        'chunked and length',
        'gzip',
        'short length',
        'hex length',
        'signed length',
        'negative length',
        'spaced length',
      )
      .map((kind) => {
        const headers = without(raw.headers, 'content-length')
        const size = raw.body.length
        const framed: Record<string, [string[], Buffer]> = {
          chunked: [
            [...headers, 'Transfer-Encoding: chunked'],
            Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), raw.body, Buffer.from('\r\n0\r\n\r\n')]),
          ],
          'bad chunk': [
            [...headers, 'Transfer-Encoding: chunked'],
            Buffer.concat([Buffer.from('zz\r\n'), raw.body, Buffer.from('\r\n0\r\n\r\n')]),
          ],
          'chunked and length': [
            [...headers, 'Transfer-Encoding: chunked', `Content-Length: ${size}`],
            Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), raw.body, Buffer.from('\r\n0\r\n\r\n')]),
          ],
          gzip: [[...headers, 'Transfer-Encoding: gzip'], raw.body],
          'short length': [[...headers, `Content-Length: ${Math.max(0, size - 3)}`], raw.body],
          'hex length': [[...headers, `Content-Length: 0x${size.toString(16)}`], raw.body],
          'signed length': [[...headers, `Content-Length: +${size}`], raw.body],
          'negative length': [[...headers, 'Content-Length: -1'], raw.body],
          'spaced length': [[...headers, `Content-Length: ${size} ${size}`], raw.body],
        }
        const [framedHeaders, body] = framed[kind] ?? [headers, raw.body]
        return { raw: { ...raw, headers: framedHeaders, body }, name: 'raw: framing' }
      }),
  (raw) =>
    fc
      .constantFrom(
        'X-Folded: a\r\n b',
        'X-Nul: a\u0000b',
        'X-Space : a',
        'X(Bad): a',
        'X-Latin: caf\u00e9',
        'X-Utf8: caf\u00c3\u00a9',
        'X-Long: ' + 'a'.repeat(8000),
        ': empty name',
        'NoColon',
      )
      .map((line) => ({ raw: { ...raw, headers: [...raw.headers, line] }, name: 'raw: header syntax' })),
  (raw) => fc.constant({ raw: { ...raw, lineEnding: '\n' }, name: 'raw: bare LF' }),
  (raw) =>
    fc.constantFrom(100, 500).map((count) => ({
      raw: {
        ...raw,
        headers: [...raw.headers, ...Array.from({ length: count }, (_, index) => `X-H${index}: ${index}`)],
      },
      name: 'raw: many headers',
    })),
  (raw) =>
    fc
      .constantFrom(
        (target: string) => `http://localhost${target}`,
        (target: string) => `https://localhost:1${target}`,
        (target: string) => `/${target}`,
        (target: string) => target.replace(/^\/(v\d+)\//, '/$1/./'),
        (target: string) => target.replace(/^(\/[^?]*)/, '$1/'),
        (target: string) => target.toUpperCase(),
        (target: string) =>
          target.replace(/^\/([a-z])/, (_m, letter: string) => `/%${letter.charCodeAt(0).toString(16)}`),
        (target: string) => `${target}#fragment`,
        (target: string) => `${target.split('?')[0]}/caf\u00e9`,
        (target: string) => `${target} x`,
        () => '*',
      )
      .map((rewrite) => ({
        raw: { ...raw, target: rewrite(raw.target) },
        name: 'raw: request target',
        // A target no route takes (`*`, another path) reads no body; one that reaches a 405 route reads a JSON body
        // first: one over the limit is 413. Neither takes a body, so neither judges one by its media type (never 415).
        unrouted: [...ROUTE_CHANGED, 413],
      })),
  (raw) =>
    fc
      .constantFrom('HTTP/1.0', 'HTTP/1.0 no host', 'HTTP/1.1 no host', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/0.9', 'http/1.1')
      .map((version) => ({
        raw: {
          ...raw,
          version: version.split(' ')[0] as string,
          headers: version.endsWith('no host') ? without(raw.headers, 'host') : raw.headers,
        },
        name: 'raw: version',
      })),
  // Another method on the same path reaches a 405 route, which reads a JSON body first (so 413 comes before 405).
  (raw) =>
    fc
      .constantFrom(raw.method.toLowerCase(), 'FOO', 'TRACE', 'PROPFIND', 'QUERY', 'PATCH', 'PUT')
      .map((method) => ({ raw: { ...raw, method }, name: 'raw: method', unrouted: [...ROUTE_CHANGED, 413] })),
  (raw) =>
    fc
      .constantFrom('100-continue', '200-ok', 'x')
      .map((value) => ({ raw: { ...raw, headers: [...raw.headers, `Expect: ${value}`] }, name: 'raw: expect' })),
]

/** A request (valid or already mutated) with one raw-only change, or sent twice pipelined. */
export function rawCase(
  requests: fc.Arbitrary<FuzzRequest>,
  context: RequestContext,
  host: string,
): fc.Arbitrary<RawCase> {
  return fc
    .tuple(requests, fc.integer({ min: 0, max: RAW_MUTATIONS.length }))
    .chain(([request, index]): fc.Arbitrary<RawCase> => {
      const raw = toRaw(request, context, host)
      const mutation = RAW_MUTATIONS[index]
      if (!mutation)
        return fc.constant<RawCase>({
          request: { ...request, mutations: [...request.mutations, 'raw: pipelined'] },
          raw,
          pipelined: true,
        })
      return mutation(raw, context).map((mutated): RawCase => ({
        request: {
          ...request,
          method: mutated.raw.method,
          mutations: [...request.mutations, mutated.name],
          rawTarget: mutated.raw.target,
          ...(mutated.unrouted ? { unrouted: [...(request.unrouted ?? []), ...mutated.unrouted] } : {}),
        },
        raw: mutated.raw,
        pipelined: false,
        [fc.toStringMethod]: () => JSON.stringify(serialiseRaw(mutated.raw, true).toString('latin1').slice(0, 2000)),
      }))
    })
}

function parseResponses(data: Buffer, head: boolean): { responses: ObservedResponse[]; rest: Buffer } {
  const responses: ObservedResponse[] = []
  let rest = data
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n')
    if (headEnd === -1) return { responses, rest }
    const [statusLine = '', ...lines] = rest.subarray(0, headEnd).toString('latin1').split('\r\n')
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1])
    const headers: Record<string, string> = {}
    for (const line of lines)
      headers[line.slice(0, line.indexOf(':')).trim().toLowerCase()] = line.slice(line.indexOf(':') + 1).trim()
    let body = rest.subarray(headEnd + 4)
    if (status >= 100 && status < 200) {
      rest = body
      continue
    }
    if (headers['transfer-encoding'] === 'chunked') {
      const chunks: Buffer[] = []
      for (;;) {
        const lineEnd = body.indexOf('\r\n')
        const size = parseInt(body.subarray(0, lineEnd).toString(), 16)
        if (lineEnd === -1 || Number.isNaN(size)) return { responses, rest }
        chunks.push(body.subarray(lineEnd + 2, lineEnd + 2 + size))
        body = body.subarray(lineEnd + 2 + size + 2)
        if (size === 0) break
      }
      responses.push({ status, headers, body: Buffer.concat(chunks).toString('utf8') })
      rest = body
      continue
    }
    // A response to HEAD announces the length of the body it leaves out (RFC 9110 section 9.3.2); 204 has none.
    const length = head || status === 204 || status === 304 ? 0 : Number(headers['content-length'] ?? 0)
    if (body.length < length) return { responses, rest }
    responses.push({ status, headers, body: body.subarray(0, length).toString('utf8') })
    rest = body.subarray(length)
  }
}

/** Writes the bytes, waits until the server closes the connection, and returns every response it sent. */
/**
 * Whether the head announces more body than follows. Such a client is then taken to have given up (its sending
 * side closed), so the server answers at once instead of waiting for the request time-out.
 */
export function announcesMoreBody(raw: RawRequest): boolean {
  const lengths = raw.headers
    .filter((line) => /^content-length:/i.test(line))
    .map((line) => line.slice(line.indexOf(':') + 1).trim())
  const length = lengths.at(-1)
  if (raw.headers.some((line) => /^transfer-encoding:/i.test(line)))
    return !raw.body.toString('latin1').endsWith('0\r\n\r\n')
  return length !== undefined && /^\d+$/.test(length) && Number(length) > raw.body.length
}

export async function exchangeRaw(
  baseUrl: string,
  data: Buffer,
  options: { head: boolean; endAfterWrite: boolean },
  timeoutMs = 5000,
): Promise<{ responses: ObservedResponse[]; leftover: string }> {
  const { hostname, port } = new URL(baseUrl)
  const socket = connect(Number(port), hostname)
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.on('error', () => undefined)
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.write(data)
  if (options.endAfterWrite) socket.end()
  const timer = setTimeout(() => socket.destroy(new Error('the server kept the connection open')), timeoutMs)
  await closed
  clearTimeout(timer)
  const { responses, rest } = parseResponses(Buffer.concat(chunks), options.head)
  return { responses, leftover: rest.toString('latin1') }
}
