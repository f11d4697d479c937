// Maintenance that runs in the background (the purges), never on a request's path.

export interface BackgroundTimer {
  /** Stops the timer and waits for a run in progress, so the database can be closed after it. */
  stop(): Promise<void>
}

/**
 * Runs `work` about every `intervalMs`, one run at a time; a failed run is reported and the next one tries again.
 * The first run comes at a random moment of the first interval rather than after a whole one: instances started
 * together do not run in step, and an instance restarted more often than the interval (a deployment every few
 * minutes) still runs it now and then, where waiting a whole interval first never did.
 */
export function startBackgroundTimer(
  work: () => Promise<unknown>,
  intervalMs: number,
  onError: (error: unknown) => void,
  random: () => number = Math.random,
): BackgroundTimer {
  let running: Promise<void> | undefined
  let repeating: NodeJS.Timeout | undefined
  const run = () => {
    running ??= work()
      .then(() => undefined, onError)
      .finally(() => (running = undefined))
  }
  const first = setTimeout(() => {
    run()
    // Jittered too, so that instances that happened to start their runs together drift apart.
    repeating = setInterval(run, intervalMs * (0.9 + random() * 0.2))
    repeating.unref()
  }, intervalMs * random())
  first.unref()
  return {
    async stop() {
      clearTimeout(first)
      clearInterval(repeating)
      await running
    },
  }
}
