// The SHA-256 that closes a shop file: over every byte before the closing line, as written and as read.
import { createHash, type Hash } from 'node:crypto'

export class Checksum {
  readonly #hash: Hash = createHash('sha256')

  /** Adds text exactly as it is in the file (lines with their newlines). */
  add(text: string): void {
    this.#hash.update(text, 'utf8')
  }

  hex(): string {
    return this.#hash.digest('hex')
  }
}
