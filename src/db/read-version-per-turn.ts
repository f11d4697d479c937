/**
 * A data version (SQLite's PRAGMA data_version) read once per event-loop turn for every request that asked
 * during that turn, instead of once per request: the PRAGMA takes the WAL read lock, two fcntl calls, which
 * under load cost as much as the rest of a cached read.
 *
 * Why this stays coherent: the version is read in the check phase (setImmediate), after the poll phase in
 * which every waiting request was read from its socket. Any commit acknowledged to anyone before one of those
 * requests was sent is therefore already counted in the version it gets. Reading it at the first request of
 * the turn instead would not be: a request read later in the same poll phase may have been sent after a
 * commit that followed that read.
 */
export function readVersionPerTurn(readVersion: () => number): () => Promise<number> {
  let pending: Promise<number> | undefined
  return () => {
    pending ??= new Promise<number>((resolve, reject) => {
      setImmediate(() => {
        // Cleared first: a request arriving after this read must wait for a read of its own.
        pending = undefined
        try {
          resolve(readVersion())
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)))
        }
      })
    })
    return pending
  }
}

/**
 * The same for a version read over the network (PostgreSQL's data_version table, see
 * migrations/0006_data_version.ts): one query for every request that asked before it was sent, and always
 * sent after they asked, so that a commit acknowledged before any of those requests was sent is counted.
 *
 * At most one read is in flight. A request that asks while one is in flight waits for the next read, sent in
 * the check phase after the current one answers: the read in flight may have been taken before that request
 * was sent, so its answer is not good enough. Under load this batches the requests of several turns into one
 * query, and the versions one instance sees never go backwards.
 */
export function readRemoteVersionPerTurn(readVersion: () => Promise<number>): () => Promise<number> {
  let next: { promise: Promise<number>; resolve: (version: number) => void; reject: (error: Error) => void } | undefined
  let inFlight = false

  const send = () => {
    const batch = next
    // Taken first: whoever asks from now on waits for a read sent after they asked.
    next = undefined
    if (!batch) return
    inFlight = true
    readVersion()
      .then(batch.resolve, (error: unknown) => batch.reject(error instanceof Error ? error : new Error(String(error))))
      .finally(() => {
        inFlight = false
        if (next) setImmediate(send)
      })
  }

  return () => {
    if (!next) {
      let resolve!: (version: number) => void
      let reject!: (error: Error) => void
      const promise = new Promise<number>((resolvePromise, rejectPromise) => {
        resolve = resolvePromise
        reject = rejectPromise
      })
      next = { promise, resolve, reject }
      if (!inFlight) setImmediate(send)
    }
    return next.promise
  }
}
