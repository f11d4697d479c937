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
