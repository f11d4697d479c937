// /readyz is never rate limited (a balancer's probe refused with 429 would take a healthy instance out of service),
// so it has to stay cheap under any flood: every request that arrives while a ping is on its way waits for that
// ping's answer instead of sending its own. However many ask at once, an instance has at most one readiness query
// in flight, and each answer is one the database gave (or failed to give in time) while the request waited.

/**
 * A ping that callers share while it is in flight, failing after `timeoutMs`; the next caller after it settles
 * starts a new one. The time-out frees the slot too, so a ping that never settles holds back no later check.
 */
export function sharedPing(ping: () => Promise<void>, timeoutMs: number): () => Promise<void> {
  let inFlight: Promise<void> | undefined
  return () => {
    inFlight ??= withTimeout(ping(), timeoutMs).finally(() => {
      inFlight = undefined
    })
    return inFlight
  }
}

function withTimeout(ping: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('database ping timed out')), timeoutMs)
  })
  return Promise.race([ping, timeout]).finally(() => clearTimeout(timer))
}
