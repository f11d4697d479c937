// What every request meets before authentication, in this order: the one synchronous first hook (first-hook.ts,
// with the refusal while shutting down), then CORS; conditional headers a change cannot evaluate, refused before
// its validation; and, as the server closes, the end of connections never used.
import type { FastifyInstance } from 'fastify'
import { registerCors } from './cors.js'
import { registerFirstHook } from './first-hook.js'
import { registerShutdownGuard } from './shutdown-guard.js'
import { refuseUnsupportedConditions } from './unsupported-conditions.js'
import { closeUnusedConnectionsOnClose } from './unused-connections.js'

export async function registerRequestHooks(app: FastifyInstance): Promise<void> {
  registerFirstHook(app, registerShutdownGuard(app))
  closeUnusedConnectionsOnClose(app)
  await registerCors(app)
  refuseUnsupportedConditions(app)
}
