import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { Type } from 'typebox'
import { namedHeader } from '../http/openapi/openapi-names.js'
import type { Metrics } from '../http/metrics/metrics.js'

// RFC 9745: deprecated since 2026-01-01T00:00:00Z (version 1.0.0), as an epoch-seconds Structured Field Date.
const DEPRECATION = '@1767225600'
// RFC 8594: removal on 5 December 2030.
const SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT'

/** Marks every authenticated response of a deprecated operation, and counts the call against its key. */
export function markDeprecated(options: {
  operation: string
  successor: (request: FastifyRequest) => string
  metrics: Metrics
}) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    reply.headers({ deprecation: DEPRECATION, sunset: SUNSET })
    const operation = options.operation
    const keyId = request.principal?.keyId ?? 'unknown'
    // Operation ids and key ids hold no space, so the key names one label set only.
    options.metrics.deprecatedCalls.inc(`${operation} ${keyId}`, () => ({ operation, key_id: keyId }))
    // Last: a throw (a Host header unfit for the link) is caught by Fastify's hook runner and answered as an error,
    // which still says the operation is deprecated.
    reply.header('link', `<${options.successor(request)}>; rel="successor-version"`)
    done()
  }
}

/** The headers markDeprecated adds, as documented on each response that carries them. */
export const DeprecationHeadersSchema = {
  Deprecation: namedHeader(
    'Deprecation',
    Type.String({
      description: `RFC 9745: deprecated since 2026-01-01 (\`${DEPRECATION}\`).`,
      examples: [DEPRECATION],
    }),
  ),
  Sunset: namedHeader(
    'Sunset',
    Type.String({ description: `RFC 8594: removed on \`${SUNSET}\`.`, examples: [SUNSET] }),
  ),
  Link: namedHeader(
    'SuccessorLink',
    Type.String({
      description: 'RFC 8288 link to the operation to use instead: `<…/v1/pets>; rel="successor-version"`.',
      examples: ['<https://petstore.example.com/v1/pets>; rel="successor-version"'],
    }),
  ),
}
