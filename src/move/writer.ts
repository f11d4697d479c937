// Where an export goes: a file, created with mode 0600 (it holds secrets) under a temporary name and renamed
// once complete, so a failed export never leaves a file that looks whole; or a stream: standard output, a named
// pipe or a device, written into as they are (renaming a file over /dev/stdout would replace it). Writes wait
// for the stream to drain, so a slow reader (gzip, a pipe to another machine) holds the export back, not memory.
import { once } from 'node:events'
import {
  closeSync,
  constants,
  createWriteStream,
  existsSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs'
import { open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join, sep } from 'node:path'
import type { Writable } from 'node:stream'
import { Checksum } from './checksum.js'
import { FORMAT_NAME } from './format.js'

export interface ShopFileWriter {
  /** Writes lines (each ending in a newline), counted in the checksum. */
  write(lines: string): Promise<void>
  /** Writes the closing line, built from the checksum of everything before it, and finishes the file. */
  close(closingLine: (sha256: string) => string): Promise<void>
  /** Removes what was written, after a failure. */
  abandon(): Promise<void>
}

/** Where the export goes: a regular file (new, or an earlier export it replaces) or a stream written into. */
export interface ExportTarget {
  path: string
  stream: boolean
}

// `once` rejects with the stream's error, should one come first, and leaves no listener behind either way.
async function written(stream: Writable, text: string, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted()
  if (!stream.write(text)) await once(stream, 'drain', { signal })
}

const SHOP_FILE_START = `{"format":${JSON.stringify(FORMAT_NAME)}`

function startsLikeShopFile(path: string): boolean {
  const start = Buffer.alloc(SHOP_FILE_START.length)
  let descriptor: number
  try {
    descriptor = openSync(path, 'r')
  } catch (error) {
    // Replacing it unread could lose a file that is not an export; an earlier export of another user is theirs.
    throw new Error(`${path} exists and this user cannot read it: name a new file, or remove this one first`, {
      cause: error,
    })
  }
  try {
    return readSync(descriptor, start, 0, start.length, 0) === start.length && start.toString() === SHOP_FILE_START
  } finally {
    closeSync(descriptor)
  }
}

/**
 * Refused before anything is read: a missing directory, a directory, a path ending in / and a path through a file
 * (the export would otherwise fail at its end, naming its temporary file), and an existing file other than an
 * earlier export, which would be lost.
 */
export function exportTarget(target: string): ExportTarget {
  if (target === '-') return { path: target, stream: true }
  const directory = dirname(target)
  if (!existsSync(directory)) throw new Error(`no directory ${directory} to write ${target} in`)
  // A file in its place (a typing slip, an earlier export): the temporary file could not be made in it.
  if (!statSync(directory).isDirectory()) throw new Error(`${directory} is not a directory to write ${target} in`)
  if (!existsSync(target)) {
    // "backups/" names a directory, one that does not exist yet: the rename at the end would fail on it.
    if (target.endsWith(sep)) throw new Error(`${target} names a directory: name a file to export to`)
    return { path: target, stream: false }
  }
  const stats = statSync(target)
  if (stats.isDirectory()) throw new Error(`${target} is a directory: name a file to export to`)
  if (!stats.isFile()) return { path: target, stream: true }
  if (stats.size > 0 && !startsLikeShopFile(target))
    throw new Error(`${target} exists and is not a petstore export: name a new file, or remove this one first`)
  // An earlier export replaced where it is, not a symbolic link to it.
  return { path: realpathSync(target), stream: false }
}

/** A file that could not be created or written, named as the operator gave it rather than by its temporary name. */
function notCreated(path: string, intoStream: boolean, error: Error & { code?: unknown }): Error {
  if (intoStream || (error as { syscall?: unknown }).syscall !== 'open') return error
  const reason = error.message.replace(/^[A-Z]+: /, '').replace(/, open .*$/, '')
  return new Error(
    `cannot create ${path} (${reason}): the directory ${dirname(path)} must be writable by this user; name a ` +
      'file in a directory it may write to, or - for stdout',
    { cause: error },
  )
}

/**
 * A write that failed for a reason an operator acts on (the reader went away, the disk is full), said in words
 * rather than as the system call's error; `what` says what became of the export.
 */
function notWritten(where: string, what: string, error: Error & { code?: unknown }): Error {
  const reason =
    error.code === 'EPIPE' ? 'its reader closed it first' : error.code === 'ENOSPC' ? 'no space left' : undefined
  if (reason === undefined) return error
  return new Error(`cannot write the export to ${where} (${reason}): ${what}`, { cause: error })
}

/**
 * Opening a named pipe to write waits for a reader, in a thread of libuv's pool that nothing can interrupt: an
 * export abandoned then would keep the process alive for good (its exit joins that thread). Opening the pipe to
 * read, without waiting, and closing it again lets that opening complete; the writes after it then fail (no
 * reader), which no longer matters.
 */
function releasePendingOpen(path: string): void {
  try {
    if (!statSync(path).isFIFO()) return
    closeSync(openSync(path, constants.O_RDONLY | constants.O_NONBLOCK))
  } catch {
    // Gone, or not ours to open: the opening it would release fails or ends by itself.
  }
}

async function synced(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

export function shopFileWriter({ path, stream: intoStream }: ExportTarget, signal?: AbortSignal): ShopFileWriter {
  const toStdout = path === '-'
  const partial = join(dirname(path), `.${basename(path)}.${process.pid}.partial`)
  const stream: Writable = toStdout
    ? process.stdout
    : intoStream
      ? createWriteStream(path, { flags: 'w' })
      : createWriteStream(partial, { flags: 'wx', mode: 0o600 })
  const checksum = new Checksum()
  let failure: Error | undefined
  // A step that fails because the stream did reports the stream's error, said in words (notWritten).
  const streamFailureFirst = (error: unknown): never => {
    throw failure ?? error
  }
  stream.on('error', (error: Error) => {
    const where = toStdout ? 'standard output' : path
    const what = toStdout || intoStream ? 'the export is incomplete' : 'no file was written'
    failure ??= notWritten(where, what, toStdout ? error : notCreated(path, intoStream, error))
  })
  return {
    async write(lines) {
      if (failure) throw failure
      checksum.add(lines)
      await written(stream, lines, signal).catch(streamFailureFirst)
    },
    async close(closingLine) {
      await written(stream, closingLine(checksum.hex()), signal).catch(streamFailureFirst)
      if (toStdout) return
      stream.end()
      // With the signal: a named pipe nobody opens to read never finishes.
      await once(stream, 'finish', { signal }).catch(streamFailureFirst)
      if (failure) throw failure
      if (!intoStream) {
        // On disk before it takes the name, and the new name on disk after: a crash then leaves the earlier export
        // or the whole new one at the path, never an empty or partial file in its place.
        await synced(partial)
        await rename(partial, path)
        await synced(dirname(path))
      }
    },
    async abandon() {
      if (toStdout) return
      if (intoStream && (stream as Writable & { pending?: boolean }).pending) releasePendingOpen(path)
      stream.destroy()
      if (!intoStream) await rm(partial, { force: true })
    },
  }
}
