// The `details` of a validation error: where each problem is and what is wrong, bounded. Without a bound,
// 1,300 unknown query parameters (9 KB of request) became a 125 KB answer and a 48 KB log line.
import type { FastifyError } from 'fastify'
import type { ErrorDetail } from '../errors/errors.js'

/** Problems listed one by one; beyond them a last entry counts the rest (documented in error.schema.ts). */
export const MAX_LISTED_PROBLEMS = 20
// A path quotes a parameter or property name as sent, which can be kilobytes long.
export const MAX_DETAIL_PATH_LENGTH = 200

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' }

// What a pattern asks for, in words: a regular expression would tell a client less than a sentence does, and
// would show how the rule is written rather than what it is. Kept on the schema under a symbol: ajv compiles and
// the document generator copies string keys only, and a refusal finds it on the failing schema.
const PATTERN_RULE = Symbol('pattern rule')

/** `schema` (one with a `pattern`), whose refusal says `rule` (e.g. "must be visible ASCII") instead of the pattern. */
export function withPatternRule<T extends object>(schema: T, rule: string): T {
  return Object.assign(schema, { [PATTERN_RULE]: rule })
}

// OpenAPI's integer formats hold what a JSON number holds exactly; the schema's range usually says more.
const FORMAT_RULES: Record<string, string> = {
  int64: `must be between ${-Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
  int32: `must be between ${-(2 ** 31)} and ${2 ** 31 - 1}`,
}

interface AjvLikeError {
  instancePath?: string
  message?: string
  keyword?: string
  params?: Record<string, unknown>
  /** The schema that holds the failing keyword (the validator's `verbose` option). */
  parentSchema?: Record<symbol, unknown>
}

function ruleMessage(problem: AjvLikeError): string | undefined {
  switch (problem.keyword) {
    case 'enum': {
      const allowed = problem.params?.allowedValues as unknown[]
      return `must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`
    }
    case 'const':
      return `must be ${JSON.stringify(problem.params?.allowedValue)}`
    case 'pattern': {
      const rule = problem.parentSchema?.[PATTERN_RULE]
      return typeof rule === 'string' ? rule : undefined
    }
    case 'format':
      return FORMAT_RULES[String(problem.params?.format)]
    default:
      return undefined
  }
}

/** An integer format's refusal beside another of the same value (its range) says nothing more: it is left out. */
const saysMore = (problem: AjvLikeError, index: number, problems: AjvLikeError[]) =>
  problem.keyword !== 'format' ||
  FORMAT_RULES[String(problem.params?.format)] === undefined ||
  !problems.some((other, at) => at !== index && other.instancePath === problem.instancePath)

/** A name as one JSON pointer token (RFC 6901: `~` and `/` are written `~0` and `~1`), as ajv's instancePath has it. */
export const pointerToken = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1')

function describe(part: string, problem: AjvLikeError): ErrorDetail {
  const missing = problem.params?.missingProperty
  const extra = problem.params?.additionalProperty
  const child =
    typeof missing === 'string'
      ? `/${pointerToken(missing)}`
      : typeof extra === 'string'
        ? `/${pointerToken(extra)}`
        : ''
  const message =
    typeof missing === 'string'
      ? 'is required'
      : typeof extra === 'string'
        ? 'is not allowed'
        : (ruleMessage(problem) ?? problem.message ?? 'is invalid')
  const path = `${part}${problem.instancePath ?? ''}${child}`
  return { path: path.length > MAX_DETAIL_PATH_LENGTH ? `${path.slice(0, MAX_DETAIL_PATH_LENGTH)}…` : path, message }
}

/** The details and the one-line summary of a validation error, both bounded. */
export function validationDetails(error: FastifyError): { details: ErrorDetail[]; summary: string } {
  const part = PART_NAMES[error.validationContext ?? ''] ?? 'request'
  const problems = ((error.validation ?? []) as AjvLikeError[]).filter(saysMore)
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => describe(part, problem))
  const summary = listed.map((detail) => `${detail.path} ${detail.message}`).join('; ')
  const unlisted = problems.length - listed.length
  if (unlisted === 0) return { details: listed, summary }
  return {
    details: [...listed, { path: part, message: `${unlisted} more problems not listed` }],
    summary: `${summary}; and ${unlisted} more problems in ${part}`,
  }
}
