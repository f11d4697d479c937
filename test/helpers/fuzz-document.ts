// The served OpenAPI document as the fuzzer's only source of truth: which operations exist, what their
// parameters and bodies look like, and which responses they document. Nothing here names a pets route, so
// an operation added to the document is fuzzed without touching the fuzzer.
import assert from 'node:assert/strict'

export interface JsonSchema {
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  format?: string
  pattern?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  items?: JsonSchema
  minItems?: number
  maxItems?: number
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  default?: unknown
  $ref?: string
  [keyword: string]: unknown
}

export interface Parameter {
  name: string
  in: 'query' | 'path' | 'header' | 'cookie'
  required: boolean
  schema: JsonSchema
}

export interface DocumentedResponse {
  /** The application/json schema, when the response has a JSON body. */
  schema: JsonSchema | undefined
  /** Every media type the response documents (none: the response has no body). */
  contentTypes: string[]
  /** Names of the documented response headers, lower case. */
  headers: string[]
}

export interface Operation {
  operationId: string
  /** Upper case, as sent. */
  method: string
  /** The document's path template, relative to the server (e.g. `/pets/{petId}`). */
  path: string
  parameters: Parameter[]
  body: { required: boolean; contentTypes: string[]; schema: JsonSchema } | undefined
  responses: Record<string, DocumentedResponse>
}

export interface OpenApiDocument {
  servers?: { url: string }[]
  paths: Record<string, Record<string, unknown>>
  components?: Record<string, unknown>
  [key: string]: unknown
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** Replaces every local `$ref` by what it points at, so schemas can be compiled and walked on their own. */
export function dereference<T>(document: T): T {
  const root = document as unknown
  const resolve = (pointer: string): unknown => {
    assert.ok(pointer.startsWith('#/'), `only local references are supported: ${pointer}`)
    return pointer
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], root)
  }
  const walk = (node: unknown, depth: number): unknown => {
    assert.ok(depth < 64, 'reference cycle in the OpenAPI document')
    if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1))
    if (node === null || typeof node !== 'object') return node
    const { $ref, ...rest } = node as Record<string, unknown>
    if (typeof $ref === 'string') return walk({ ...(resolve($ref) as object), ...rest }, depth + 1)
    return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, walk(value, depth + 1)]))
  }
  return walk(root, 0) as T
}

/** The path every operation path is relative to: the first server's path (`/v1`). */
export function apiPrefix(document: OpenApiDocument): string {
  const url = document.servers?.[0]?.url
  assert.ok(url, 'the document names a server')
  return new URL(url, 'http://localhost').pathname.replace(/\/$/, '')
}

function responsesOf(
  raw: Record<string, { content?: Record<string, { schema?: JsonSchema }>; headers?: Record<string, unknown> }>,
) {
  const responses: Record<string, DocumentedResponse> = {}
  for (const [status, response] of Object.entries(raw)) {
    const content = response.content ?? {}
    responses[status] = {
      schema: content['application/json']?.schema,
      contentTypes: Object.keys(content),
      headers: Object.keys(response.headers ?? {}).map((name) => name.toLowerCase()),
    }
  }
  return responses
}

/** Every operation of the document, with path-level parameters merged in and references resolved. */
export function operationsOf(rawDocument: OpenApiDocument): Operation[] {
  const document = dereference(rawDocument)
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(document.paths)) {
    const shared = (item.parameters ?? []) as Parameter[]
    for (const method of HTTP_METHODS) {
      const raw = item[method] as Record<string, unknown> | undefined
      if (!raw) continue
      const own = (raw.parameters ?? []) as Parameter[]
      const parameters = [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own].map(
        (p) => ({ name: p.name, in: p.in, required: p.required === true || p.in === 'path', schema: p.schema ?? {} }),
      )
      const requestBody = raw.requestBody as
        { required?: boolean; content?: Record<string, { schema?: JsonSchema }> } | undefined
      const contentTypes = Object.keys(requestBody?.content ?? {})
      operations.push({
        operationId: typeof raw.operationId === 'string' ? raw.operationId : `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters,
        body: requestBody
          ? {
              required: requestBody.required === true,
              contentTypes,
              schema: requestBody.content?.['application/json']?.schema ?? {},
            }
          : undefined,
        responses: responsesOf((raw.responses ?? {}) as Parameters<typeof responsesOf>[0]),
      })
    }
  }
  return operations
}

/** True for an operation whose success is a stream (Server-Sent Events): its response never ends. */
export function isStream(operation: Operation): boolean {
  return Object.entries(operation.responses).some(
    ([status, response]) => status.startsWith('2') && response.contentTypes.includes('text/event-stream'),
  )
}

/** The shared Error body schema: the schema of the first documented 4xx JSON response. */
export function errorSchemaOf(operations: Operation[]): JsonSchema {
  for (const operation of operations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (status.startsWith('4') && response.schema) return response.schema
    }
  }
  throw new Error('no operation documents a 4xx JSON response')
}

/** Every `format` keyword used anywhere in the document, so the oracle can prove it knows them all. */
export function formatsUsed(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) formatsUsed(item, found)
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'format' && typeof value === 'string') found.add(value)
      else formatsUsed(value, found)
    }
  }
  return found
}
