// What every request meets before authentication, in this order: the one synchronous first hook (first-hook.ts,
// with the refusal while shutting down), then CORS; conditional headers a change cannot evaluate, refused before
// its validation. (The end of connections never used, as the server closes, is registered by the app after
// every other preClose hook: unused-connections.ts.)
import type { FastifyInstance } from 'fastify'
import { registerCors } from './cors.js'
import { registerFirstHook } from './first-hook.js'
import { registerShutdownGuard } from './shutdown-guard.js'
import { refuseUnsupportedConditions } from './unsupported-conditions.js'

export async function registerRequestHooks(app: FastifyInstance): Promise<void> {
  registerFirstHook(app, registerShutdownGuard(app))
  await registerCors(app)
  refuseUnsupportedConditions(app)
}
