// Names for the reusable parts of the OpenAPI document. The route schemas validate, serialise and document,
// and stay inline, so that validation and serialisation never depend on references; a schema, response or
// header given a name here is listed once under `components` of the document and referenced wherever a route
// uses it (openapi-components.ts). The names are symbols: invisible to TypeBox, Ajv and the serialiser, and
// they survive the spreads routes make (`{ ...PetSchema, description: '…' }`).

/** The name of a schema under `components.schemas` (`Pet`). */
export const SCHEMA_NAME = Symbol('openapi schema name')
/** The name of a response under `components.responses` (`Unauthorized`), on a route's response schema. */
export const RESPONSE_NAME = Symbol('openapi response name')
/** The name of a header under `components.headers` (`RateLimit`), on the schema of a response header. */
export const HEADER_NAME = Symbol('openapi header name')
/**
 * What the document shows instead of this schema: for a rule the service enforces in a form not every regular
 * expression dialect reads (the pet name's `\p{…}` classes), stated in words there instead.
 */
export const DOCUMENTED_AS = Symbol('openapi documented as')

type Marked = Record<symbol, unknown>

function mark<T extends object>(schema: T, key: symbol, value: unknown): T {
  ;(schema as Marked)[key] = value
  return schema
}

const namedSchemas = new Map<string, object>()

/** `schema`, listed as `components.schemas[name]` wherever it (or a copy with other annotations) is used. */
export function named<T extends object>(name: string, schema: T): T {
  const existing = namedSchemas.get(name)
  if (existing !== undefined && existing !== schema) throw new Error(`two schemas are named ${name}`)
  namedSchemas.set(name, schema)
  return mark(schema, SCHEMA_NAME, name)
}

/** The schema given `name`, as its source defines it (its own description and examples, not a use's). */
export function namedSchema(name: string): object | undefined {
  return namedSchemas.get(name)
}

/** A response schema, listed as `components.responses[name]`. */
export function namedResponse<T extends object>(name: string, response: T): T {
  return mark(response, RESPONSE_NAME, name)
}

/** A response header's schema, listed as `components.headers[name]`. */
export function namedHeader<T extends object>(name: string, header: T): T {
  return mark(header, HEADER_NAME, name)
}

/** `schema` as the service enforces it, shown in the document as `documented`. */
export function documentedAs<T extends object>(schema: T, documented: object): T {
  return mark(schema, DOCUMENTED_AS, documented)
}

export function nameOf(node: object, key: symbol): string | undefined {
  const value = (node as Marked)[key]
  return typeof value === 'string' ? value : undefined
}

export function documentedVersionOf(node: object): object | undefined {
  const value = (node as Marked)[DOCUMENTED_AS]
  return typeof value === 'object' && value !== null ? value : undefined
}
