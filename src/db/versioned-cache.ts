/**
 * Results of reads, kept while the database is unchanged. `readVersion` must change whenever anyone (this
 * process or another) commits: SQLite's PRAGMA data_version on the read connection does exactly that, and
 * PostgreSQL's data_version table for writes to the tables whose reads are cached, so a cached answer is
 * always the answer a fresh query would give. Without a version source (SQLite in memory) every read goes to
 * the database. An `undefined` result is never kept: it is loaded again next time.
 */
export class VersionedCache<V> {
  readonly #readVersion: (() => Promise<number>) | undefined
  readonly #maxEntries: number
  readonly #entries = new Map<string, V>()
  #version = Number.NaN

  constructor(readVersion: (() => Promise<number>) | undefined, maxEntries = 1000) {
    this.#readVersion = readVersion
    this.#maxEntries = maxEntries
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.#readVersion) return load()
    const version = await this.#readVersion()
    if (version !== this.#version) {
      this.#entries.clear()
      this.#version = version
    }
    const cached = this.#entries.get(key)
    if (cached !== undefined) return cached
    const value = await load()
    // A commit during the load is caught by the next request's version check, which clears this entry.
    if (value !== undefined && this.#version === version) {
      if (this.#entries.size >= this.#maxEntries) this.#entries.clear()
      this.#entries.set(key, value)
    }
    return value
  }
}
