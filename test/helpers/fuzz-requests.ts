// Requests built from the document's operations: path and query parameters as text, the body as JSON text,
// and the way each request is sent (in-process through Fastify's inject, or over a real socket with fetch).
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import type { Operation, Parameter } from './fuzz-document.js'
import { normaliseHeaders, type ObservedResponse } from './fuzz-oracle.js'
import { arbitraryFor } from './fuzz-schema-arbitrary.js'

export interface FuzzRequest {
  operation: Operation
  method: string
  /** Path parameter values as sent, already percent-encoded. */
  pathValues: Record<string, string>
  /** Query pairs as sent, already percent-encoded (a name may repeat). */
  query: [string, string][]
  /** Raw query text appended after the pairs (for malformed query strings). */
  rawQuery?: string
  headers: Record<string, string>
  body: string | Buffer | undefined
  /** The mutations applied, for failure messages and counting; empty for a valid request. */
  mutations: string[]
  /** Statuses a mutation may draw from outside the operation, because it changed which route the request reaches. */
  unrouted?: number[]
  /** The request target as sent, when a raw mutation rewrote it. */
  rawTarget?: string
  /** How fast-check prints a counterexample: the request, not the whole operation it was made for. */
  [fc.toStringMethod]?: () => string
}

function printable(this: FuzzRequest): string {
  const { operation, method, pathValues, query, rawQuery, headers, body, mutations } = this
  return JSON.stringify({
    operationId: operation.operationId,
    method,
    pathValues,
    query,
    rawQuery,
    headers,
    body: Buffer.isBuffer(body) ? body.toString('latin1') : body,
    mutations,
  })
}

export interface RequestContext {
  prefix: string
  apiKey: string
}

export function urlOf(request: FuzzRequest, prefix: string): string {
  const path = request.operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => request.pathValues[name] ?? '')
  const parts = [
    ...request.query.map(([name, value]) => `${name}=${value}`),
    ...(request.rawQuery === undefined ? [] : [request.rawQuery]),
  ]
  return `${prefix}${path}${parts.length === 0 ? '' : `?${parts.join('&')}`}`
}

/** A value as a client writes it into a URL: integers in decimal, everything else percent-encoded text. */
export function parameterText(value: unknown): string {
  return encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))
}

function parameterArbitrary(parameter: Parameter): fc.Arbitrary<string> {
  return arbitraryFor(parameter.schema).map(parameterText)
}

function queryArbitrary(parameters: Parameter[]): fc.Arbitrary<[string, string][]> {
  const entries = parameters.map((parameter) => {
    const value = parameterArbitrary(parameter).map((text): [string, string] => [
      encodeURIComponent(parameter.name),
      text,
    ])
    return parameter.required
      ? value.map((pair) => [pair])
      : fc.option(value, { nil: undefined, freq: 2 }).map((pair) => (pair ? [pair] : []))
  })
  return fc.tuple(...entries).map((lists) => lists.flat())
}

/** Requests the document says are valid: every parameter and the body drawn from their schemas, with a valid key. */
export function validRequest(operation: Operation, context: RequestContext): fc.Arbitrary<FuzzRequest> {
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path')
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === 'query')
  const headerParameters = operation.parameters.filter((parameter) => parameter.in === 'header')
  const pathValues = fc.record(
    Object.fromEntries(pathParameters.map((parameter) => [parameter.name, parameterArbitrary(parameter)])),
  )
  const headerValues = fc.record(
    Object.fromEntries(
      headerParameters.map((parameter) => [parameter.name.toLowerCase(), arbitraryFor(parameter.schema).map(String)]),
    ),
    {
      requiredKeys: headerParameters
        .filter((parameter) => parameter.required)
        .map((parameter) => parameter.name.toLowerCase()),
    },
  )
  const body = operation.body
    ? operation.body.required
      ? arbitraryFor(operation.body.schema)
      : fc.option(arbitraryFor(operation.body.schema), { nil: undefined })
    : fc.constant(undefined)
  const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8')
  const requestId = fc.option(fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/), { nil: undefined })
  return fc
    .record({ pathValues, query: queryArbitrary(queryParameters), headerValues, body, contentType, requestId })
    .map(({ pathValues: values, query, headerValues: extra, body: value, contentType: type, requestId: id }) => ({
      operation,
      method: operation.method,
      pathValues: values as Record<string, string>,
      query,
      headers: {
        ...(extra as Record<string, string>),
        authorization: `Bearer ${context.apiKey}`,
        ...(value === undefined ? {} : { 'content-type': type }),
        ...(id === undefined ? {} : { 'x-request-id': id }),
      },
      body: value === undefined ? undefined : JSON.stringify(value),
      mutations: [],
      [fc.toStringMethod]: printable,
    }))
}

export function describeRequest(request: FuzzRequest, prefix: string): string {
  const body =
    request.body === undefined ? '' : Buffer.isBuffer(request.body) ? request.body.toString('latin1') : request.body
  return (
    `${request.method} ${urlOf(request, prefix)} [${request.mutations.join(', ') || 'valid'}]\n` +
    `headers ${JSON.stringify(request.headers)}\nbody ` +
    `${JSON.stringify(body.length > 300 ? `${body.slice(0, 300)}…(${body.length})` : body)}`
  )
}

export async function sendInProcess(
  app: FastifyInstance,
  request: FuzzRequest,
  prefix: string,
): Promise<ObservedResponse> {
  const response = await app.inject({
    method: request.method as 'GET',
    url: urlOf(request, prefix),
    headers: request.headers,
    ...(request.body === undefined ? {} : { payload: request.body }),
  })
  return { status: response.statusCode, headers: normaliseHeaders(response.headers), body: response.body }
}

// Headers fetch manages itself or refuses to send.
const FETCH_MANAGED = new Set([
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'expect',
  'keep-alive',
  'upgrade',
])

export async function sendOverFetch(baseUrl: string, request: FuzzRequest, prefix: string): Promise<ObservedResponse> {
  // fetch refuses header values that are not Latin-1 text without NUL, CR or LF: those are the raw slice's to send.
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(
      ([name, value]) => !FETCH_MANAGED.has(name) && /^[\t\x20-\x7e\x80-\xff]*$/.test(value),
    ),
  )
  const bodyless = request.method === 'GET' || request.method === 'HEAD'
  const response = await fetch(`${baseUrl}${urlOf(request, prefix)}`, {
    method: request.method,
    headers,
    ...(bodyless || request.body === undefined ? {} : { body: request.body }),
  })
  return { status: response.status, headers: normaliseHeaders(response.headers), body: await response.text() }
}

/** A plain authenticated request to a concrete path (the read-back of a 201). */
export async function readInProcess(
  app: FastifyInstance,
  method: string,
  path: string,
  apiKey: string,
): Promise<ObservedResponse> {
  const response = await app.inject({
    method: method as 'GET',
    url: path,
    headers: { authorization: `Bearer ${apiKey}` },
  })
  return { status: response.statusCode, headers: normaliseHeaders(response.headers), body: response.body }
}

export async function readOverFetch(
  baseUrl: string,
  method: string,
  path: string,
  apiKey: string,
): Promise<ObservedResponse> {
  const response = await fetch(`${baseUrl}${path}`, { method, headers: { authorization: `Bearer ${apiKey}` } })
  return { status: response.status, headers: normaliseHeaders(response.headers), body: await response.text() }
}
