// How many long-lived reads (event streams and waiting long polls) one API key may hold open at once. Each holds
// a connection and a follower of the feed for up to its whole life, so without a bound one key could take every
// socket the instance has. Counted per instance: what is protected is the instance's own connections and memory.
import { TooManyOpenReads } from '../domain/errors.js'

/** What a refused client is told to wait: about as long as a long poll takes to end and free its place. */
const RETRY_AFTER_SECONDS = 5

export class OpenReadLimits {
  readonly #perHolder: number
  readonly #held = new Map<string, number>()

  constructor(perHolder: number) {
    this.#perHolder = perHolder
  }

  /** Takes a place for `holder` (an API key's id); returns what gives it back. Throws when all are taken. */
  acquire(holder: string): () => void {
    const held = this.#held.get(holder) ?? 0
    if (held >= this.#perHolder) {
      throw new TooManyOpenReads(
        `This API key already holds ${held} open event streams and waiting long polls, the most it may; close ` +
          `one, or retry in ${RETRY_AFTER_SECONDS} s.`,
        RETRY_AFTER_SECONDS,
      )
    }
    this.#held.set(holder, held + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const remaining = (this.#held.get(holder) ?? 1) - 1
      if (remaining > 0) this.#held.set(holder, remaining)
      else this.#held.delete(holder)
    }
  }
}
