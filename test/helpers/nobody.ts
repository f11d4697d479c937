// Tests of what a user without rights meets. Root reads and writes anything: as root, the command runs as nobody,
// for whom modes hold. Nobody must reach the checkout (node_modules, the CLI) and the test's directory: a clone in
// a private directory (mktemp -d is 0700) would otherwise fail for that reason alone. Directories on the way that
// others cannot traverse get o+x (traverse only, never read) for the test, and their mode back after.
import { chmodSync, statSync } from 'node:fs'
import { dirname } from 'node:path'

/** The user a command runs as in these tests: nobody when the tests run as root, else the tests' own user. */
export const UNPRIVILEGED = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined

/** Directories given o+x so that nobody may traverse them; `restore` gives each its mode back. */
export class NobodyTraversal {
  readonly #opened: { path: string; mode: number }[] = []

  /** Makes `path` and every directory above it traversable by nobody (only when the tests run as root). */
  open(path: string): void {
    if (!UNPRIVILEGED) return
    for (let current = path; ; current = dirname(current)) {
      const mode = statSync(current).mode & 0o7777
      if ((mode & 0o001) === 0) {
        this.#opened.push({ path: current, mode })
        chmodSync(current, mode | 0o001)
      }
      if (dirname(current) === current) break
    }
  }

  restore(): void {
    for (const { path, mode } of this.#opened.reverse()) chmodSync(path, mode)
    this.#opened.length = 0
  }
}
