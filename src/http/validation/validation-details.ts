// The `details` of a validation error: where each problem is and what is wrong, bounded. Without a bound,
// 1,300 unknown query parameters (9 KB of request) became a 125 KB answer and a 48 KB log line.
import type { FastifyError } from 'fastify'
import { ENTITY_TAG_LIST_PATTERN } from '../entity-tag.js'
import type { ErrorDetail } from '../errors/errors.js'

/** Problems listed one by one; beyond them a last entry counts the rest (documented in error.schema.ts). */
export const MAX_LISTED_PROBLEMS = 20
// A path quotes a parameter or property name as sent, which can be kilobytes long.
export const MAX_DETAIL_PATH_LENGTH = 200

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' }

// Patterns whose text would tell a client less than a sentence does.
const PATTERN_EXPLANATIONS = new Map([
  [
    ENTITY_TAG_LIST_PATTERN,
    'must be * or a comma-separated list of entity tags, each in double quotes as the ETag header gives it (e.g. ' +
      '"12.3")',
  ],
])

interface AjvLikeError {
  instancePath?: string
  message?: string
  keyword?: string
  params?: Record<string, unknown>
}

function describe(part: string, problem: AjvLikeError): ErrorDetail {
  const missing = problem.params?.missingProperty
  const extra = problem.params?.additionalProperty
  const child = typeof missing === 'string' ? `/${missing}` : typeof extra === 'string' ? `/${extra}` : ''
  const message =
    typeof missing === 'string'
      ? 'is required'
      : typeof extra === 'string'
        ? 'is not allowed'
        : problem.keyword === 'enum'
          ? 'must be one of ' +
            `${(problem.params?.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`
          : ((problem.keyword === 'pattern' ? PATTERN_EXPLANATIONS.get(String(problem.params?.pattern)) : undefined) ??
            problem.message ??
            'is invalid')
  const path = `${part}${problem.instancePath ?? ''}${child}`
  return { path: path.length > MAX_DETAIL_PATH_LENGTH ? `${path.slice(0, MAX_DETAIL_PATH_LENGTH)}…` : path, message }
}

/** The details and the one-line summary of a validation error, both bounded. */
export function validationDetails(error: FastifyError): { details: ErrorDetail[]; summary: string } {
  const part = PART_NAMES[error.validationContext ?? ''] ?? 'request'
  const problems = (error.validation ?? []) as AjvLikeError[]
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => describe(part, problem))
  const summary = listed.map((detail) => `${detail.path} ${detail.message}`).join('; ')
  const unlisted = problems.length - listed.length
  if (unlisted === 0) return { details: listed, summary }
  return {
    details: [...listed, { path: part, message: `${unlisted} more problems not listed` }],
    summary: `${summary}; and ${unlisted} more problems in ${part}`,
  }
}
