// How requests are validated. JSON bodies are checked exactly as they are: nothing is coerced, no unknown
// property is dropped. Query and path parameters arrive as text and are parsed strictly before the same
// schema checks them: `limit=05`, `limit=2.5`, `limit=1e1`, a repeated or an unknown parameter are all refused.
import { Ajv, type ErrorObject } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'
import { isDateTime } from '../date-time.js'
import { pointerToken } from './validation-details.js'

const CANONICAL_INTEGER = /^-?(0|[1-9][0-9]*)$/

interface ObjectSchema {
  properties?: Record<string, { type?: string }>
}

function createAjv(): Ajv {
  // `verbose` gives each problem its schema, where a pattern's rule in words is kept (validation-details.ts).
  const ajv = new Ajv({
    coerceTypes: false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    strict: true,
    verbose: true,
  })
  // OpenAPI's integer formats. A fraction is already reported by `type: integer`, and the schema's minimum
  // and maximum carry the documented range, so the formats only add what JSON numbers cannot hold exactly.
  ajv.addFormat('int64', {
    type: 'number',
    validate: (value: number) => !Number.isInteger(value) || Number.isSafeInteger(value),
  })
  ajv.addFormat('int32', {
    type: 'number',
    validate: (value: number) => !Number.isInteger(value) || (value >= -(2 ** 31) && value <= 2 ** 31 - 1),
  })
  // RFC 3339, strictly: a real date (no 2026-02-30) and time with an explicit offset, at most milliseconds.
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime })
  // An absolute URL as the WHATWG parser reads it (what fetch and the webhook sender call); what a URL may
  // point at (scheme, credentials, address) is the domain's rule, checked after the schema.
  ajv.addFormat('uri', { type: 'string', validate: (text: string) => URL.canParse(text) })
  return ajv
}

function problem(name: string, message: string, keyword: string): ErrorObject {
  return { instancePath: `/${pointerToken(name)}`, schemaPath: '#', keyword, params: {}, message }
}

function compileTextParameters(ajv: Ajv, schema: ObjectSchema) {
  const properties = schema.properties ?? {}
  const validate = ajv.compile(schema)
  return (data: unknown) => {
    const errors: ErrorObject[] = []
    const parsed: Record<string, unknown> = {}
    for (const [name, raw] of Object.entries((data ?? {}) as Record<string, unknown>)) {
      const property = Object.hasOwn(properties, name) ? properties[name] : undefined
      if (!property) {
        errors.push(problem(name, 'is not a known parameter', 'additionalProperties'))
      } else if (typeof raw !== 'string') {
        errors.push(problem(name, 'must be given at most once', 'type'))
      } else if (property.type === 'integer') {
        // Anything but a plain decimal integer stays text, so the schema reports "must be integer".
        parsed[name] = CANONICAL_INTEGER.test(raw) ? Number(raw) : raw
      } else {
        parsed[name] = raw
      }
    }
    // The schema's problems with the rest too, so that one answer lists them all; a parameter already reported
    // (given twice) is not reported again as missing.
    if (!validate(parsed)) {
      const reported = new Set(errors.map((error) => error.instancePath))
      for (const error of validate.errors ?? []) {
        const missing =
          error.keyword === 'required' ? `/${pointerToken(String(error.params.missingProperty))}` : undefined
        if (missing === undefined || !reported.has(missing)) errors.push(error)
      }
    }
    return errors.length > 0 ? { error: errors } : { value: parsed }
  }
}

/**
 * Node reads header names in lower case; the schemas spell them as documented (`Idempotency-Key`). Fastify
 * lowers them itself only for its own validator compiler, not for a custom one like this.
 */
function withLowerCaseHeaderNames(schema: ObjectSchema & { required?: string[] }): object {
  return {
    ...schema,
    ...(schema.properties
      ? {
          properties: Object.fromEntries(
            Object.entries(schema.properties).map(([name, property]) => [name.toLowerCase(), property]),
          ),
        }
      : {}),
    ...(schema.required ? { required: schema.required.map((name) => name.toLowerCase()) } : {}),
  }
}

export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const ajv = createAjv()
  return ({ schema, httpPart }) => {
    if (httpPart === 'querystring' || httpPart === 'params') {
      return compileTextParameters(ajv, schema as ObjectSchema)
    }
    if (httpPart === 'headers') return ajv.compile(withLowerCaseHeaderNames(schema as ObjectSchema))
    return ajv.compile(schema as object)
  }
}
