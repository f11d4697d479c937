// Maintenance that runs in the background (the purges), never on a request's path.

export interface BackgroundTimer {
  /** Stops the timer and waits for a run in progress, so the database can be closed after it. */
  stop(): Promise<void>
}

/** Runs `work` about every `intervalMs`, one run at a time; a failed run is reported and the next one tries again. */
export function startBackgroundTimer(
  work: () => Promise<unknown>,
  intervalMs: number,
  onError: (error: unknown) => void,
): BackgroundTimer {
  let running: Promise<void> | undefined
  // Jittered, so that instances started together do not run in step.
  const timer = setInterval(
    () => {
      running ??= work()
        .then(() => undefined, onError)
        .finally(() => (running = undefined))
    },
    intervalMs * (0.9 + Math.random() * 0.2),
  )
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
