// JSON Schema → fast-check, for the subset the OpenAPI document uses: objects with properties, required and
// additionalProperties, strings with lengths, patterns and formats, bounded integers, enums, booleans, arrays,
// nullable type lists and anyOf/oneOf. Every generated value is finally checked against the schema itself, so a
// construct this converter only approximates can never produce a value it claims to be valid.
import fc from 'fast-check'
import { Ajv } from 'ajv'
import type { JsonSchema } from './fuzz-document.js'
import { addOracleFormats } from './fuzz-oracle.js'

const ajv = addOracleFormats(new Ajv({ strict: false, allErrors: false }))

/**
 * Any code point but a lone surrogate half, each plane reachable. fast-check's own `unit: 'binary'` means the
 * same, but building it costs seconds (it maps every code point back for shrinking).
 */
export const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff })
  .filter((code) => code < 0xd800 || code > 0xdfff)
  .map((code) => String.fromCodePoint(code))

const INT64_MIN = Number.MIN_SAFE_INTEGER
const INT64_MAX = Number.MAX_SAFE_INTEGER
/** Ids in a fresh test database are small: biasing towards them makes lookups find something now and then. */
const SMALL_SPAN = 40

function integerArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const int32 = schema.format === 'int32'
  let min = schema.minimum ?? (int32 ? -(2 ** 31) : INT64_MIN)
  let max = schema.maximum ?? (int32 ? 2 ** 31 - 1 : INT64_MAX)
  if (schema.exclusiveMinimum !== undefined) min = Math.max(min, Math.floor(schema.exclusiveMinimum) + 1)
  if (schema.exclusiveMaximum !== undefined) max = Math.min(max, Math.ceil(schema.exclusiveMaximum) - 1)
  min = Math.max(Math.ceil(min), INT64_MIN)
  max = Math.min(Math.floor(max), INT64_MAX)
  const low = Math.max(min, Math.min(max, 1))
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: low, max: Math.min(max, low + SMALL_SPAN) }) },
    { weight: 2, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  )
}

function dateTimeArbitrary(): fc.Arbitrary<string> {
  const instant = fc.date({
    min: new Date('1970-01-01T00:00:00Z'),
    max: new Date('2199-12-31T23:59:59Z'),
    noInvalidDate: true,
  })
  const offset = fc.record({
    sign: fc.constantFrom('+', '-'),
    hours: fc.integer({ min: 0, max: 14 }),
    minutes: fc.constantFrom(0, 30, 45),
  })
  return fc.tuple(instant, fc.option(offset), fc.boolean()).map(([date, zone, milliseconds]) => {
    const shift = zone ? (zone.sign === '+' ? 1 : -1) * (zone.hours * 60 + zone.minutes) : 0
    const local = new Date(date.getTime() + shift * 60_000).toISOString().slice(0, milliseconds ? 23 : 19)
    const pad = (value: number) => String(value).padStart(2, '0')
    return zone ? `${local}${zone.sign}${pad(zone.hours)}:${pad(zone.minutes)}` : `${local}Z`
  })
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0
  const maxLength = schema.maxLength ?? Math.max(minLength, 64)
  switch (schema.format) {
    case 'date-time':
      return dateTimeArbitrary()
    case 'date':
      return dateTimeArbitrary().map((text) => text.slice(0, 10))
    case 'uuid':
      return fc.uuid()
    case 'email':
      return fc.emailAddress()
    case 'uri':
      return fc.webUrl()
  }
  const lengths = { minLength, maxLength }
  // Code points of every plane and every kind (the pattern filter below removes what the schema forbids),
  // printable ASCII, and whole graphemes (combining marks, emoji sequences).
  const text = fc.oneof(
    fc.string({ unit: 'grapheme-ascii', ...lengths }),
    fc.string({ unit: anyCodePoint, ...lengths }),
    fc.string({ unit: 'grapheme', ...lengths }).filter((value) => [...value].length <= maxLength),
  )
  // A rule stated as `x-unicode-pattern` (the pet name's: in \\p{…} classes, which not every dialect reads) is
  // enforced by the service like a pattern, so valid values must follow it too.
  const source =
    schema.pattern ?? (typeof schema['x-unicode-pattern'] === 'string' ? schema['x-unicode-pattern'] : undefined)
  if (source === undefined) return text
  const pattern = new RegExp(source, 'u')
  // fast-check can build strings from simple patterns; Unicode property classes it cannot, so those filter.
  const generated = /\\[pP]\{/.test(source) ? text : fc.stringMatching(pattern)
  return generated.filter(
    (value) => pattern.test(value) && [...value].length >= minLength && [...value].length <= maxLength,
  )
}

function objectArbitrary(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {}
  const shape = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, arbitraryFor(property)]))
  return fc.record(shape, {
    requiredKeys: (schema.required ?? []).filter((name) => name in properties),
  }) as fc.Arbitrary<Record<string, unknown>>
}

function untypedArbitrary(schema: JsonSchema, type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringArbitrary(schema)
    case 'integer':
      return integerArbitrary(schema)
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e9,
        max: schema.maximum ?? 1e9,
        noNaN: true,
        noDefaultInfinity: true,
      })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return fc.array(arbitraryFor(schema.items ?? {}), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      })
    case 'object':
      return objectArbitrary(schema)
    default:
      throw new Error(`the fuzzer cannot generate values of type ${type}`)
  }
}

function unfiltered(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  const alternatives = schema.anyOf ?? schema.oneOf
  if (alternatives)
    return fc.oneof(
      ...alternatives.map((alternative) =>
        arbitraryFor({ ...schema, anyOf: undefined, oneOf: undefined, ...alternative }),
      ),
    )
  if (schema.allOf) return arbitraryFor(Object.assign({}, schema, ...schema.allOf, { allOf: undefined }) as JsonSchema)
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['object']
  return fc.oneof(...types.map((type) => untypedArbitrary(schema, type)))
}

const cache = new WeakMap<JsonSchema, fc.Arbitrary<unknown>>()

/** Values the schema accepts, and only those. */
export function arbitraryFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  let arbitrary = cache.get(schema)
  if (!arbitrary) {
    const validate = ajv.compile(schema)
    arbitrary = unfiltered(schema).filter((value) => validate(value))
    cache.set(schema, arbitrary)
  }
  return arbitrary
}
