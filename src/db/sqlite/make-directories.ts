// The directories a new SQLite file goes in, made as `mkdir -p` makes them.
import { existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * Makes `directory` and the parents it lacks, one at a time from the top. Node's `mkdirSync(…, { recursive: true })`
 * loops for ever on a file system that answers a new directory with ENOENT while its parent exists (procfs:
 * DATABASE_URL=file:/proc/x/petstore.db hung the command with a core busy); here that ENOENT is thrown, and
 * explained like any other failure to create the file.
 */
export function makeDirectories(directory: string): void {
  if (existsSync(directory)) return
  makeDirectories(dirname(directory))
  try {
    mkdirSync(directory)
  } catch (error) {
    // Made by someone else in between: what was wanted.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
}
