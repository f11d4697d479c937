// What every request meets before authentication, in this order: the one synchronous first hook (first-hook.ts,
// with the refusal while shutting down), then CORS; conditional headers a change cannot evaluate, refused before
// its validation; 100 Continue sent only once a request has passed every check made before its body is read,
// authentication included (expect-continue.ts). A HEAD route's 304 leaves without Content-Length
// (not-modified-length.ts). (The end of connections never used, as the server closes, is registered by the app
// after every other preClose hook: unused-connections.ts.)
import type { FastifyInstance } from 'fastify'
import { registerCors } from './cors.js'
import { continueAfterChecks } from './expect-continue.js'
import { registerFirstHook } from './first-hook.js'
import { omitLengthOfNotModified } from './not-modified-length.js'
import { registerShutdownGuard } from './shutdown-guard.js'
import { refuseUnsupportedConditions } from './unsupported-conditions.js'

export async function registerRequestHooks(app: FastifyInstance): Promise<void> {
  registerFirstHook(app, registerShutdownGuard(app))
  await registerCors(app)
  refuseUnsupportedConditions(app)
  continueAfterChecks(app)
  omitLengthOfNotModified(app)
}
