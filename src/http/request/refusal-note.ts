// A refused request (401, 404, 429, a validation 400, …) is told in its access line, not in a line of its own:
// under a flood of refusals a second line per request doubled the log's volume for nothing an operator needs
// apart. The error handler notes the refusal here; the access log (access-log.ts) writes it with the request.
import type { FastifyRequest } from 'fastify'

export interface Refusal {
  /** The error code of the answer's body (`rate_limited`, `unauthorized`, …). */
  code: string
  /** The answer's message, keys redacted and its length capped: it can quote the request at any length. */
  errorMessage: string
}

const refusals = new WeakMap<FastifyRequest, Refusal>()

export function noteRefusal(request: FastifyRequest, refusal: Refusal): void {
  refusals.set(request, refusal)
}

/** What the access line adds for a refused request; nothing for one answered normally. */
export function refusalOf(request: FastifyRequest): Refusal | undefined {
  return refusals.get(request)
}
