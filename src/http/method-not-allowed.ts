import type { FastifyInstance, HTTPMethods } from 'fastify'
import { ApiError } from './errors.js'

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

/** Answers 405 with an Allow header for the methods a path does not support (instead of a misleading 404). */
export function rejectOtherMethods(app: FastifyInstance, url: string, allowed: HTTPMethods[]): void {
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', ')
  app.route({
    method: METHODS.filter((method) => !allowed.includes(method)),
    url,
    schema: { hide: true },
    handler: async (request) => {
      throw new ApiError('method_not_allowed', `${request.method} is not allowed on this resource; allowed: ${allow}.`, { headers: { allow } })
    },
  })
}
