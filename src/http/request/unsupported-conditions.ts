// Conditional request headers (RFC 9110 section 13.1) sent with a change to a resource that has no entity tag: an
// order, a webhook endpoint, a new pet or category. Nothing could be compared, and carrying the change out anyway
// would ignore what the client made it depend on, so it is refused, before validation, and nothing changes.
// The operations that evaluate a condition declare its header in their schema (updatePet, deletePet, putCategory,
// deleteCategory); safe methods are left alone, as ignoring a condition changes nothing there.
import type { FastifyInstance, FastifyRequest, preValidationHookHandler, RouteOptions } from 'fastify'
import { ApiError } from '../errors/errors.js'

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const CONDITIONS: Record<string, string> = { 'if-match': 'If-Match', 'if-none-match': 'If-None-Match' }

/** The header names a route's schema declares, in lower case. */
function declaredHeaders(route: RouteOptions): Set<string> {
  const headers = route.schema?.headers as { properties?: Record<string, unknown> } | undefined
  return new Set(Object.keys(headers?.properties ?? {}).map((name) => name.toLowerCase()))
}

/** `taken`: the conditions the operation does evaluate (updatePet takes If-Match, not If-None-Match). */
function refusal(name: string, taken: string[]): ApiError {
  const shown = CONDITIONS[name] ?? name
  const why =
    taken.length === 0
      ? 'its resource has no entity tag to compare'
      : `it takes ${taken.map((other) => CONDITIONS[other] ?? other).join(' and ')} only`
  return new ApiError('invalid_request', `This operation does not take ${shown}: ${why}. Nothing was changed.`, {
    details: [{ path: `header/${name}`, message: 'is not supported by this operation' }],
  })
}

function refuseWhenPresent(names: string[], taken: string[]): preValidationHookHandler {
  return (request: FastifyRequest, _reply, done) => {
    const sent = names.find((name) => request.headers[name] !== undefined)
    done(sent === undefined ? undefined : refusal(sent, taken))
  }
}

/** For every route added after it: an unsafe route that does not declare a condition refuses it. */
export function refuseUnsupportedConditions(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().some((method) => UNSAFE_METHODS.has(method))) return
    const declared = declaredHeaders(route)
    const unsupported = Object.keys(CONDITIONS).filter((name) => !declared.has(name))
    if (unsupported.length === 0) return
    const taken = Object.keys(CONDITIONS).filter((name) => declared.has(name))
    route.preValidation = [...[route.preValidation ?? []].flat(), refuseWhenPresent(unsupported, taken)]
  })
}
