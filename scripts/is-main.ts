// Whether a script module is the one node was asked to run (not imported by a test). Compared as real paths:
// `file://${argv[1]}` differs from import.meta.url for a path with a space (percent-encoded in the URL), a
// symlink or Windows, and a gate script that wrongly thought it was imported would exit 0 having checked nothing.
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export function isMain(moduleUrl: string): boolean {
  const entry = process.argv[1]
  if (entry === undefined) return false
  try {
    return realpathSync(fileURLToPath(moduleUrl)) === realpathSync(resolve(entry))
  } catch {
    return false
  }
}
