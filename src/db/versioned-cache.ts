/**
 * A loaded value and the data version read before the query that loaded it (see VersionedCache.getFresh);
 * undefined when the load was sent without one, and the value is then not kept.
 */
export interface VersionedValue<V> {
  value: V
  version: number | undefined
}

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
  /**
   * Keys loaded once and not kept yet (the `keepOnSecondLoad` option), forgotten when the version changes. A load
   * made without the version (getFresh) cannot tell its version: its key counts as loaded under the current one.
   */
  readonly #loadedOnce: Set<string> | undefined
  #version = Number.NaN

  /**
   * `keepOnSecondLoad`: a value is kept only when its key is loaded a second time under the same version. For
   * keys read at random from far more than `maxEntries` (gets by id across a large catalogue), keeping each
   * value on its first load holds it just long enough to be promoted to V8's old generation, where it costs a
   * full collection, and it is seldom asked for again before the entries are dropped. A key asked for twice is
   * the one likely to be asked for again; it is kept from then on as before.
   */
  constructor(
    readVersion: (() => Promise<number>) | undefined,
    maxEntries = 1000,
    { keepOnSecondLoad = false }: { keepOnSecondLoad?: boolean } = {},
  ) {
    this.#readVersion = readVersion
    this.#maxEntries = maxEntries
    this.#loadedOnce = keepOnSecondLoad ? new Set() : undefined
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.#readVersion) return load()
    const version = await this.#readVersion()
    if (version !== this.#version) this.#startVersion(version)
    const cached = this.#entries.get(key)
    if (cached !== undefined) return cached
    const value = await load()
    // A commit during the load is caught by the next request's version check, which clears this entry.
    if (value !== undefined && this.#version === version) this.#keep(key, value)
    return value
  }

  /**
   * The same for a store whose loads learn the version themselves (PostgreSQL: the version read is sent just
   * before the query, on the same connection, in the same write: postgres-data-version.ts). Its versions
   * grow but for the case below. A key that is not cached needs no version to be answered, since a query sent
   * after the caller asked is always fresh: it is loaded at once, one round trip instead of a version read and
   * then the query. Only a cached key waits for the version, to learn whether its value still holds.
   *
   * `load` is told whether the value would be kept. When it would not (with `keepOnSecondLoad`, a key's first
   * load), the load may skip the version read and answer an undefined version: the key is only remembered as
   * loaded once, and its next load asks for the version and is kept. Such a value is not kept even when its load
   * brought a version anyway (a batch in which another caller asked for one).
   *
   * Why a value may be kept under the version its load returned: that version was read before the query ran,
   * so the rows are at least as new as it says. A later request that reads the same version knows nobody
   * committed in between (every commit to the cached tables raises it), so the rows are what it would read; a
   * request that reads another version drops them. An older version drops them too: it may be a read overtaken
   * by a newer answer, but it may also be the database gone back in time under the service (an earlier copy put
   * in place, a failover to a standby that lacked the last commits), whose versions then climb again through
   * the same numbers with other rows. The two cannot be told apart, and keeping the values would serve, for as
   * long as the version stays below theirs and then once it reaches theirs, rows that no longer exist.
   */
  async getFresh(key: string, load: (wouldKeep: boolean) => Promise<VersionedValue<V>>): Promise<V> {
    if (!this.#readVersion) return (await load(false)).value
    if (this.#entries.has(key)) {
      const version = await this.#readVersion()
      if (version < this.#version) this.#startVersion(version)
      else this.#advanceTo(version)
      const cached = this.#entries.get(key)
      if (cached !== undefined) return cached
    }
    const wouldKeep = this.#loadedOnce?.has(key) ?? true
    const { value, version } = await load(wouldKeep)
    if (value === undefined) return value
    // Kept as promised, even when the version moved on since the key was remembered (which forgets it).
    if (!wouldKeep || version === undefined) this.#rememberLoad(key)
    else if (this.#advanceTo(version)) this.#set(key, value)
    return value
  }

  /** Moves to a newer version, dropping what was kept under the old one; false when `version` is older. */
  #advanceTo(version: number): boolean {
    if (version === this.#version) return true
    if (version < this.#version) return false
    this.#startVersion(version)
    return true
  }

  /** Forgets everything kept or loaded under the version before. */
  #startVersion(version: number): void {
    this.#entries.clear()
    this.#loadedOnce?.clear()
    this.#version = version
  }

  #keep(key: string, value: V): void {
    if (this.#loadedOnce && !this.#loadedOnce.delete(key)) this.#rememberLoad(key)
    else this.#set(key, value)
  }

  #set(key: string, value: V): void {
    this.#loadedOnce?.delete(key)
    if (this.#entries.size >= this.#maxEntries) this.#entries.clear()
    this.#entries.set(key, value)
  }

  /** Notes a key's first load (`keepOnSecondLoad`), so that its next load is kept. */
  #rememberLoad(key: string): void {
    const loadedOnce = this.#loadedOnce
    if (!loadedOnce || loadedOnce.has(key)) return
    if (loadedOnce.size >= this.#maxEntries) loadedOnce.clear()
    loadedOnce.add(key)
  }
}
