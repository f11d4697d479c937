// The fuzzer's oracle: ajv compiled from the served OpenAPI document. A response passes when its status is
// below 500 and documented for the operation, its body matches the schema documented for that status (an
// Error body's `status` equal to the HTTP status), and it carries the headers every API response has.
import { Ajv, type ValidateFunction } from 'ajv'
import type { JsonSchema, Operation } from './fuzz-document.js'

/** RFC 3339 section 5.6 date-time, written independently of the service's own parser. */
const RFC3339 = new RegExp(
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])/.source +
    /[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/.source,
)

export const ORACLE_FORMATS = ['int64', 'int32', 'date-time', 'uri']

export function addOracleFormats(ajv: Ajv): Ajv {
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) })
  ajv.addFormat('int32', {
    type: 'number',
    validate: (value: number) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31,
  })
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value: string) => RFC3339.test(value) && !Number.isNaN(Date.parse(value)),
  })
  // RFC 3986's absolute URI, by its generic syntax: a scheme, then no white space or control characters.
  ajv.addFormat('uri', {
    type: 'string',
    validate: (value: string) => /^[A-Za-z][A-Za-z0-9+.-]*:[^\s\p{Cc}]*$/u.test(value),
  })
  return ajv
}

export interface ObservedResponse {
  status: number
  /** Lower-case names. */
  headers: Record<string, string | undefined>
  body: string
}

export function normaliseHeaders(
  headers: Record<string, string | string[] | number | undefined> | Headers,
): Record<string, string | undefined> {
  if (headers instanceof Headers) return Object.fromEntries([...headers.entries()])
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name.toLowerCase(),
      Array.isArray(value) ? value.join(', ') : value === undefined ? undefined : String(value),
    ]),
  )
}

export function documentedStatus(operation: Operation, status: number): string | undefined {
  return [String(status), `${String(status)[0]}XX`, 'default'].find((key) => key in operation.responses)
}

export class ResponseOracle {
  private readonly ajv = addOracleFormats(new Ajv({ strict: false, allErrors: true }))
  private readonly validators = new Map<JsonSchema, ValidateFunction>()

  constructor(private readonly errorSchema: JsonSchema) {}

  validate(schema: JsonSchema, value: unknown): string | undefined {
    let validate = this.validators.get(schema)
    if (!validate) {
      validate = this.ajv.compile(schema)
      this.validators.set(schema, validate)
    }
    return validate(value) ? undefined : this.ajv.errorsText(validate.errors)
  }

  /**
   * What every response must carry, whatever answered it; an API response (its path under the prefix) also no-store.
   */
  private commonProblems(response: ObservedResponse, api: boolean): string[] {
    const problems: string[] = []
    if (response.status >= 500) problems.push(`status ${response.status} is a server error`)
    if (response.headers['x-content-type-options'] !== 'nosniff') problems.push('X-Content-Type-Options is not nosniff')
    if (api && response.headers['cache-control'] !== 'no-store')
      problems.push(`Cache-Control is ${response.headers['cache-control']}, not no-store`)
    if (response.headers['x-powered-by'] !== undefined) problems.push('X-Powered-By is present')
    if (!response.headers['x-request-id']) problems.push('X-Request-Id is missing')
    return problems
  }

  private bodyProblems(schema: JsonSchema, response: ObservedResponse, method: string): string[] {
    if (method === 'HEAD') return response.body === '' ? [] : ['a HEAD response has a body']
    if (!/^application\/json(;|$)/.test(response.headers['content-type'] ?? ''))
      return [`Content-Type is ${response.headers['content-type']}, not application/json`]
    let body: unknown
    try {
      body = JSON.parse(response.body)
    } catch {
      return [`the body is not JSON: ${response.body.slice(0, 200)}`]
    }
    const problems: string[] = []
    const invalid = this.validate(schema, body)
    if (invalid) problems.push(`the body breaks the documented schema for ${response.status}: ${invalid}`)
    if (response.status >= 400 && (body as { status?: unknown } | null)?.status !== response.status)
      problems.push('the Error body status differs from the HTTP status')
    return problems
  }

  /** Problems with a response to a request for `operation` (empty: it passes). */
  check(operation: Operation, method: string, response: ObservedResponse): string[] {
    const problems = this.commonProblems(response, true)
    const key = documentedStatus(operation, response.status)
    if (key === undefined)
      return [...problems, `status ${response.status} is not documented for ${operation.operationId}`]
    const documented = operation.responses[key]
    if (documented?.schema) problems.push(...this.bodyProblems(documented.schema, response, method))
    else if (documented?.contentTypes.length === 0 && response.body !== '')
      problems.push(`${response.status} documents no body but one was sent`)
    return problems
  }

  /**
   * Problems with a response given before any operation was chosen: the HTTP parser refused the request, or
   * the path exists with other methods. Such responses are the Error body, with a status the service documents.
   */
  checkUnrouted(response: ObservedResponse, method: string, allowed: number[], api: boolean): string[] {
    const problems = this.commonProblems(response, api)
    if (!allowed.includes(response.status))
      problems.push(`status ${response.status} is not one of ${allowed.join(', ')}`)
    return [...problems, ...this.bodyProblems(this.errorSchema, response, method)]
  }
}
