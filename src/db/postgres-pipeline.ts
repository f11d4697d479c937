import type pg from 'pg'

interface Slot {
  client: Promise<pg.Client>
  inFlight: number
  corked: boolean
}

/** The socket under a pg client; pg does not type it. Absent, nothing is corked (each query is its own write). */
export function socketOf(client: pg.Client): { cork(): void; uncork(): void } | undefined {
  // Typed as always there, but checked: a client without a socket of its own (pg-native) has none.
  const stream: { cork?: unknown; uncork?: unknown } | undefined = client.connection?.stream
  return typeof stream?.cork === 'function' && typeof stream.uncork === 'function'
    ? client.connection.stream
    : undefined
}

/**
 * Reads outside transactions, on a few connections in pipeline mode: every read of an event-loop turn is
 * written to PostgreSQL in one go and answered in order, instead of one connection checked out of the pool
 * per read, each read its own write, wake-up and round trip. On two cores this is the difference that
 * matters: a get by id costs about half the CPU on each side (docs/benchmarks.md).
 *
 * Each read is a statement of its own (its own Sync): one that fails, or is cancelled by statement_timeout,
 * fails alone. A connection that breaks fails the reads in flight on it (503, as with the pool) and is opened
 * again for the next read. A slow read holds up only the reads behind it on its connection; new reads go to
 * the connection with the fewest in flight.
 */
export class ReadPipeline {
  readonly #connect: () => Promise<pg.Client>
  readonly #slots: Array<Slot | undefined>
  #ended = false

  /** `connect` opens a client in pipeline mode. */
  constructor(connect: () => Promise<pg.Client>, connections: number) {
    this.#connect = connect
    this.#slots = Array.from({ length: connections }, () => undefined)
  }

  /** Runs `work` on the least busy connection; `work` sends its queries without waiting for a turn. */
  async run<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    if (this.#ended)
      throw new Error('Client has encountered a connection error and is not queryable: the store is closed')
    const slot = this.#leastBusy()
    slot.inFlight++
    try {
      const client = await slot.client
      this.#corkForTurn(slot, client)
      return await work(client)
    } finally {
      slot.inFlight--
    }
  }

  async end(): Promise<void> {
    this.#ended = true
    const clients = this.#slots.map((slot) => slot?.client.catch(() => undefined))
    this.#slots.fill(undefined)
    // pg ends a pipelined client once its queries in flight are answered.
    await Promise.all(clients.map(async (client) => (await client)?.end().catch(() => {})))
  }

  /** Opens any connection not open yet (after a failure, again), then picks the one with fewest reads in flight. */
  #leastBusy(): Slot {
    let best: Slot | undefined
    for (let index = 0; index < this.#slots.length; index++) {
      const slot = this.#slots[index] ?? this.#open(index)
      if (!best || slot.inFlight < best.inFlight) best = slot
    }
    if (!best) throw new Error('a read pipeline needs at least one connection')
    return best
  }

  #open(index: number): Slot {
    const slot: Slot = { client: this.#connect(), inFlight: 0, corked: false }
    const forget = () => {
      if (this.#slots[index] === slot) this.#slots[index] = undefined
    }
    slot.client.then((client) => {
      client.once('error', forget)
      client.once('end', forget)
    }, forget)
    this.#slots[index] = slot
    return slot
  }

  /**
   * The reads of one turn leave in one write: the socket is corked at the first and uncorked in the check
   * phase, after every request received in this turn has sent its read.
   */
  #corkForTurn(slot: Slot, client: pg.Client): void {
    if (slot.corked) return
    const socket = socketOf(client)
    if (!socket) return
    slot.corked = true
    socket.cork()
    setImmediate(() => {
      slot.corked = false
      socket.uncork()
    })
  }
}
