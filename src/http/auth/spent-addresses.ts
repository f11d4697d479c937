// Client addresses known (to this process) to have used up their anonymous quota, and until when (performance.now()).

/** As many addresses as the in-memory rate-limit store keeps counters for. */
const MAX_ADDRESSES = 10_000

export class SpentAddresses {
  readonly #until = new Map<string, number>()

  add(address: string, until: number): void {
    // Re-inserted, so that the Map's order is the order addresses were marked in, and the oldest goes first.
    this.#until.delete(address)
    if (this.#until.size >= MAX_ADDRESSES) {
      const oldest = this.#until.keys().next()
      if (!oldest.done) this.#until.delete(oldest.value)
    }
    this.#until.set(address, until)
  }

  /** When the address may send again, or undefined when it is not (or no longer) known to be over quota. */
  until(address: string, now: number): number | undefined {
    const until = this.#until.get(address)
    if (until === undefined) return undefined
    if (until > now) return until
    this.#until.delete(address)
    return undefined
  }
}
