import type SqliteDatabase from 'better-sqlite3'
import { readVersionPerTurn } from '../read-version-per-turn.js'

/**
 * SQLite's reader: the data version of a turn (read-version-per-turn.ts) and the reads that follow it in the
 * same turn, in one read transaction. Outside a transaction every statement is a read transaction of its own,
 * and in WAL mode beginning one takes and drops a read lock on the shared-memory index (fcntl calls): about
 * half of a lookup by primary key (bench/sqlite-read-snapshot.ts). Under load a turn answers many reads that
 * missed the cache; they now share one.
 *
 * The transaction begins where the version is read (in the check phase, after every request of the turn was
 * received; PRAGMA data_version then fixes the snapshot, so the rows read are exactly those of the version) and
 * ends once the callbacks of that read have run: when the microtask queue has drained, which is where a
 * process.nextTick scheduled from a microtask runs. A read that waits for something else first runs later, in
 * a transaction of its own, as before; no statement of a later turn can see this turn's snapshot.
 */
export function readSnapshotPerTurn(reader: SqliteDatabase.Database): () => Promise<number> {
  const begin = reader.prepare('begin')
  const commit = reader.prepare('commit')
  const dataVersion = reader.prepare<[], number>('pragma data_version').pluck()
  // A connection closed meanwhile (the store was shut down) is no longer in a transaction: closing ended it.
  const end = () => {
    if (reader.inTransaction) commit.run()
  }
  return readVersionPerTurn(() => {
    // Someone else's transaction (none is expected on the reader): read the version in it, leave it alone.
    if (reader.inTransaction) return dataVersion.get() as number
    begin.run()
    try {
      const version = dataVersion.get() as number
      queueMicrotask(() => process.nextTick(end))
      return version
    } catch (error) {
      end()
      throw error
    }
  })
}
