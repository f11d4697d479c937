// Where an export goes: a file, created with mode 0600 (it holds secrets) under a temporary name and renamed
// once complete, so a failed export never leaves a file that looks whole; or standard output. Writes wait for
// the stream to drain, so a slow reader (gzip, a pipe to another machine) holds the export back, not memory.
import { once } from 'node:events'
import { createWriteStream, existsSync, statSync } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { Writable } from 'node:stream'
import { Checksum } from './checksum.js'

export interface ShopFileWriter {
  /** Writes lines (each ending in a newline), counted in the checksum. */
  write(lines: string): Promise<void>
  /** Writes the closing line, built from the checksum of everything before it, and finishes the file. */
  close(closingLine: (sha256: string) => string): Promise<void>
  /** Removes what was written, after a failure. */
  abandon(): Promise<void>
}

// `once` rejects with the stream's error, should one come first, and leaves no listener behind either way.
async function written(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain')
}

/** Refused before anything is read: the export would otherwise fail at its end, naming its temporary file. */
export function refuseUnwritableTarget(target: string): void {
  const directory = dirname(target)
  if (!existsSync(directory)) throw new Error(`no directory ${directory} to write ${target} in`)
  if (existsSync(target) && statSync(target).isDirectory())
    throw new Error(`${target} is a directory: name a file to export to`)
}

export function shopFileWriter(target: string): ShopFileWriter {
  const toStdout = target === '-'
  const partial = join(dirname(target), `.${basename(target)}.${process.pid}.partial`)
  const stream: Writable = toStdout ? process.stdout : createWriteStream(partial, { flags: 'wx', mode: 0o600 })
  const checksum = new Checksum()
  let failure: Error | undefined
  stream.on('error', (error: Error) => (failure ??= error))
  return {
    async write(lines) {
      if (failure) throw failure
      checksum.add(lines)
      await written(stream, lines)
    },
    async close(closingLine) {
      await written(stream, closingLine(checksum.hex()))
      if (toStdout) return
      stream.end()
      await once(stream, 'finish')
      if (failure) throw failure
      await rename(partial, target)
    },
    async abandon() {
      if (toStdout) return
      stream.destroy()
      await rm(partial, { force: true })
    },
  }
}
