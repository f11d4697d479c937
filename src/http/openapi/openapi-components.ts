// The document's reusable parts. @fastify/swagger writes every route schema inline; this lists each schema,
// response and header that the code named (openapi-names.ts) once under `components` and puts a `$ref` where a
// route uses it. It runs in two steps around the generator: `markNames` on each route schema (the generator
// clones schemas without their symbols, so the names travel as temporary `x-` keys), then `useComponents` on
// the finished document (which removes those keys). A name given to two different things is an error.
import { isDeepStrictEqual } from 'node:util'
import { HEADER_NAME, RESPONSE_NAME, SCHEMA_NAME, documentedVersionOf, nameOf, namedSchema } from './openapi-names.js'

const MARKERS = [
  [SCHEMA_NAME, 'x-petstore-schema'],
  [RESPONSE_NAME, 'x-petstore-response'],
  [HEADER_NAME, 'x-petstore-header'],
] as const
const [SCHEMA_KEY, RESPONSE_KEY, HEADER_KEY] = MARKERS.map(([, key]) => key) as [string, string, string]
/** The annotations of a named schema's source, carried beside each use. */
const SOURCE_ANNOTATIONS_KEY = 'x-petstore-schema-annotations'

/** Keywords that describe a use of a schema without changing what it accepts. */
// `x-default`: a request default stated where `default` would make generators require the property.
const ANNOTATIONS = new Set(['description', 'examples', 'example', 'default', 'x-default', 'title', 'deprecated'])

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A route schema as the document shows it: each named part carries its name as a temporary `x-` key, and a
 * schema with a documented form (DOCUMENTED_AS) is replaced by it.
 */
export function markNames(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(markNames)
  if (!isObject(node)) return node
  const shown = documentedVersionOf(node) ?? node
  const copy: Json = {}
  for (const [key, value] of Object.entries(shown)) copy[key] = markNames(value)
  for (const [symbol, key] of MARKERS) {
    const name = nameOf(node, symbol) ?? nameOf(shown, symbol)
    if (name !== undefined) copy[key] = name
  }
  const schemaName = copy[SCHEMA_KEY]
  if (typeof schemaName === 'string') {
    const source = (namedSchema(schemaName) ?? {}) as Json
    copy[SOURCE_ANNOTATIONS_KEY] = JSON.parse(
      JSON.stringify(Object.fromEntries(Object.entries(source).filter(([key]) => ANNOTATIONS.has(key)))),
    ) as Json
  }
  return copy
}

class Registry {
  readonly entries = new Map<string, Json>()

  constructor(private readonly kind: string) {}

  /** Lists `value` as `name`, or checks it equals what is already listed under that name. */
  add(name: string, value: Json): string {
    const listed = this.entries.get(name)
    if (listed === undefined) this.entries.set(name, value)
    else if (!isDeepStrictEqual(listed, value))
      throw new Error(
        `OpenAPI ${this.kind} "${name}" is used with two different ` +
          `definitions:\n${JSON.stringify(listed)}\n${JSON.stringify(value)}`,
      )
    return `#/components/${this.kind}/${name}`
  }

  sorted(): Json {
    // By code unit, not locale: the same order on every machine.
    return Object.fromEntries([...this.entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  }
}

function withoutAnnotations(schema: Json): Json {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !ANNOTATIONS.has(key)))
}

class Components {
  readonly schemas = new Registry('schemas')
  readonly responses = new Registry('responses')
  readonly headers = new Registry('headers')

  /**
   * The schema with each named part (innermost first) replaced by a reference. A use may differ from the
   * named schema in its annotations only (a parameter's own description, a default): those stay beside the
   * `$ref`. The listed schema has the annotations of its source.
   */
  schema(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((item) => this.schema(item))
    if (!isObject(node)) return node
    const copy: Json = {}
    for (const [key, value] of Object.entries(node))
      copy[key] = key === SCHEMA_KEY || key === SOURCE_ANNOTATIONS_KEY ? value : this.schema(value)
    const name = copy[SCHEMA_KEY]
    const annotations = isObject(copy[SOURCE_ANNOTATIONS_KEY]) ? copy[SOURCE_ANNOTATIONS_KEY] : {}
    for (const key of [SCHEMA_KEY, SOURCE_ANNOTATIONS_KEY]) Reflect.deleteProperty(copy, key)
    if (typeof name !== 'string') return copy
    const listed = { ...withoutAnnotations(copy), ...annotations }
    const reference: Json = { $ref: this.schemas.add(name, listed) }
    for (const key of ['description', 'default', 'x-default']) {
      if (copy[key] !== undefined && !isDeepStrictEqual(copy[key], annotations[key])) reference[key] = copy[key]
    }
    return reference
  }

  header(name: string, header: Json): Json {
    const schema = isObject(header.schema) ? { ...header.schema } : {}
    const componentName = typeof schema[HEADER_KEY] === 'string' ? schema[HEADER_KEY] : name
    // A header's examples belong to the header, not to its schema (OpenAPI 3.1 Header Object `example`), and
    // its description is the header's, as the generator writes it for route headers.
    const { examples } = schema
    for (const key of [HEADER_KEY, 'examples', 'description']) Reflect.deleteProperty(schema, key)
    const listed: Json = {
      ...header,
      schema,
      ...(Array.isArray(examples) && examples.length > 0 ? { example: examples[0] } : {}),
    }
    return { $ref: this.headers.add(componentName, listed) }
  }

  response(response: Json): Json {
    const copy: Json = { ...response }
    let name: string | undefined
    if (isObject(copy.headers)) {
      copy.headers = Object.fromEntries(
        Object.entries(copy.headers).map(([header, value]) => [
          header,
          isObject(value) ? this.header(header, value) : value,
        ]),
      )
    }
    if (isObject(copy.content)) {
      const content: Json = {}
      for (const [mediaType, media] of Object.entries(copy.content)) {
        if (!isObject(media)) continue
        const mediaCopy: Json = { ...media }
        if (isObject(mediaCopy.schema)) {
          const schema: Json = { ...mediaCopy.schema }
          if (typeof schema[RESPONSE_KEY] === 'string') name = schema[RESPONSE_KEY]
          Reflect.deleteProperty(schema, RESPONSE_KEY)
          const shown = this.schema(schema)
          // The response's own description says what the body is: the copy the generator put on the schema goes.
          if (isObject(shown) && typeof shown.$ref === 'string') delete shown.description
          mediaCopy.schema = shown
        }
        content[mediaType] = mediaCopy
      }
      copy.content = content
    }
    return name === undefined ? copy : { $ref: this.responses.add(name, copy) }
  }

  operation(operation: Json): Json {
    const copy: Json = { ...operation }
    if (Array.isArray(copy.parameters))
      copy.parameters = copy.parameters.map((parameter: unknown) =>
        isObject(parameter) ? { ...parameter, schema: this.schema(parameter.schema) } : parameter,
      )
    if (isObject(copy.requestBody) && isObject(copy.requestBody.content)) {
      const content = Object.fromEntries(
        Object.entries(copy.requestBody.content).map(([mediaType, media]) => [
          mediaType,
          isObject(media) ? { ...media, schema: this.schema(media.schema) } : media,
        ]),
      )
      copy.requestBody = { ...copy.requestBody, content }
    }
    if (isObject(copy.responses)) {
      copy.responses = Object.fromEntries(
        Object.entries(copy.responses).map(([status, response]) => [
          status,
          isObject(response) ? this.response(response) : response,
        ]),
      )
    }
    return copy
  }
}

const OPERATION_KEYS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/**
 * The finished document: named schemas, responses and headers listed under `components` (sorted by name, so the
 * document is the same bytes whatever the order routes were registered in) and referenced. `extra` adds
 * components no operation names (the 405 response, which belongs to no documented operation).
 */
export function useComponents<T extends Json>(document: T, extra: { responses?: Record<string, unknown> } = {}): T {
  const components = new Components()
  const paths: Json = {}
  for (const [path, item] of Object.entries(isObject(document.paths) ? document.paths : {})) {
    if (!isObject(item)) continue
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([key, value]) => [
        key,
        OPERATION_KEYS.has(key) && isObject(value) ? components.operation(value) : value,
      ]),
    )
  }
  for (const [name, response] of Object.entries(extra.responses ?? {}))
    components.responses.add(name, components.response(markNames(response) as Json))
  const existing = isObject(document.components) ? document.components : {}
  const schemas = { ...(isObject(existing.schemas) ? existing.schemas : {}), ...components.schemas.sorted() }
  return {
    ...document,
    paths,
    components: {
      ...existing,
      schemas,
      responses: components.responses.sorted(),
      headers: components.headers.sorted(),
    },
  }
}
