import type { FastifyReply } from 'fastify'

/**
 * Sends JSON that is already text (a cached response body). The text was made by JSON.stringify from the
 * same mapped objects the route's response schema describes; the type provider cannot see that, so the
 * reply is taken untyped here, in one place.
 */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text)
}
