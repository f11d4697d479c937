// Writing a key shown only once to standard output, with the outcome in hand: written, or the failure (the reader
// gone: EPIPE; a full disk or /dev/full: ENOSPC). console.log ignores such failures, while the key it carried would
// stay stored and working, seen by nobody. A reader that is only slow (a full pipe) is waited for: the write is
// queued by the stream, not refused, as a synchronous write to the non-blocking pipe would be (EAGAIN).

/** Writes `text` whole to standard output, once the reader takes it; the error when it could not. */
export function writeToStandardOutput(text: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    // The stream also emits the error it gives the callback, a tick later: without a listener then, it would end
    // the process.
    const failed = (error: NodeJS.ErrnoException) => resolve(error)
    process.stdout.on('error', failed)
    process.stdout.write(text, (error) => {
      setImmediate(() => process.stdout.off('error', failed))
      resolve(error ?? undefined)
    })
  })
}

/** How a failure of writeToStandardOutput is named in a message: its code (EPIPE, ENOSPC), else its words. */
export const failureName = (failure: NodeJS.ErrnoException): string => failure.code ?? failure.message

const STOP_SIGNALS: readonly string[] = ['SIGTERM', 'SIGINT']

/** A failure of writeToStandardOutputUnlessStopped that is the signal which came first. */
export const stoppedBy = (failure: NodeJS.ErrnoException): NodeJS.Signals | undefined =>
  failure.code !== undefined && STOP_SIGNALS.includes(failure.code) ? (failure.code as NodeJS.Signals) : undefined

/**
 * writeToStandardOutput, given up when SIGTERM or SIGINT comes while the reader has not taken the text yet: then a
 * failure named by the signal (stoppedBy), so that the caller withdraws what the text carried, and ends by the
 * signal. Left to its default, the signal would end the process at once, the text unsent and a key it carried
 * stored, seen by nobody; and the write still waiting would keep the process from ending by itself.
 */
export function writeToStandardOutputUnlessStopped(text: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const settle = (failure: NodeJS.ErrnoException | undefined) => {
      for (const signal of STOP_SIGNALS) process.off(signal, stopped)
      resolve(failure)
    }
    const stopped = (signal: NodeJS.Signals) =>
      settle(Object.assign(new Error(`stopped by ${signal} before it was written`), { code: signal }))
    for (const signal of STOP_SIGNALS) process.once(signal, stopped)
    void writeToStandardOutput(text).then(settle)
  })
}
