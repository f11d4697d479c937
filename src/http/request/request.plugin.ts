// What every request meets before authentication, in this order: the one synchronous first hook (first-hook.ts,
// with the refusal while shutting down), then CORS.
import type { FastifyInstance } from 'fastify'
import { registerCors } from './cors.js'
import { registerFirstHook } from './first-hook.js'
import { registerShutdownGuard } from './shutdown-guard.js'

export async function registerRequestHooks(app: FastifyInstance): Promise<void> {
  registerFirstHook(app, registerShutdownGuard(app))
  await registerCors(app)
}
