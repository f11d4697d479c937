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
