// Reading a shop file line by line, checking it as it goes: the header first, then the records, which count
// only once the closing line's checksum matches every byte before it and nothing but blank lines follows it.
import { createReadStream, statSync } from 'node:fs'
import { access } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { Checksum } from './checksum.js'
import { DamagedFileError } from './columns.js'
import { NOT_AN_EXPORT, parseBody, parseHeader, type Closing, type Header, type ShopRecord } from './format.js'

export class MissingFileError extends Error {}

/** Far above the longest line an export writes (a row holds at most some tens of kilobytes). */
const MAX_LINE_BYTES = 64 * 1024 * 1024

/**
 * Refuses a file with no line break for more than MAX_LINE_BYTES (a disk image, /dev/zero): readline would gather
 * it into one string until V8's limit on a string's length ended the process with a stack trace. Listens before
 * readline does, so that the chunk that passes the bound is the last one it takes.
 */
function refuseEndlessLines(input: Readable): void {
  let run = 0
  let lineEnded = false
  input.on('data', (chunk: Buffer) => {
    const first = chunk.indexOf(10)
    const longest = first < 0 ? run + chunk.length : run + first
    run = first < 0 ? run + chunk.length : chunk.length - chunk.lastIndexOf(10) - 1
    if (longest > MAX_LINE_BYTES)
      input.destroy(
        new DamagedFileError(
          lineEnded ? 'the file is damaged: a line is longer than any petstore export writes' : NOT_AN_EXPORT,
        ),
      )
    lineEnded ||= first >= 0
  })
}

export interface ShopFileReader {
  header: Header
  /** The records; the iteration throws DamagedFileError when the file turns out damaged, truncated or edited. */
  records(): AsyncGenerator<ShopRecord, Closing>
  close(): void
}

export async function openShopFile(source: string, signal?: AbortSignal): Promise<ShopFileReader> {
  let input: Readable = process.stdin
  if (source !== '-') {
    try {
      await access(source)
    } catch {
      throw new MissingFileError(`no such file: ${source}`)
    }
    if (statSync(source).isDirectory())
      throw new MissingFileError(`${source} is a directory: name a file written by petstore export`)
    input = createReadStream(source)
  }
  refuseEndlessLines(input)
  // Stopped, the import ends at the next line, or at once when it waits for one (a slow pipe).
  const reading = createInterface({ input, crlfDelay: Infinity })
  signal?.addEventListener('abort', () => (reading.close(), input.destroy()), { once: true })
  const lines = reading[Symbol.asyncIterator]()
  const first = await lines.next()
  const headerLine = first.done === true ? undefined : first.value
  // gzip's magic bytes, 1f 8b, as the UTF-8 decoder reads them: a compressed backup not yet decompressed.
  if (headerLine?.startsWith('\u001f\ufffd'))
    throw new DamagedFileError(
      `the file is gzip-compressed: decompress it first (gunzip -c ${source === '-' ? 'FILE' : source} | ` +
        'petstore import -)',
    )
  const header = parseHeader(headerLine)
  const checksum = new Checksum()
  checksum.add(`${headerLine}\n`)

  async function* records(): AsyncGenerator<ShopRecord, Closing> {
    let lineNumber = 1
    for (;;) {
      const next = await lines.next()
      signal?.throwIfAborted()
      if (next.done === true) throw new DamagedFileError('the file is truncated: it ends before its closing line')
      lineNumber++
      let record: ShopRecord | Closing
      try {
        record = parseBody(next.value, lineNumber)
      } catch (error) {
        // The last line, and not whole: a copy cut off (a full disk, a dropped connection), not an edited one.
        const notJson = error instanceof DamagedFileError && error.message.endsWith(' is not JSON')
        if (notJson && (await lines.next()).done === true)
          throw new DamagedFileError(`the file is truncated: it ends in the middle of line ${lineNumber}`)
        throw error
      }
      if ('end' in record) {
        if (record.sha256 !== checksum.hex())
          throw new DamagedFileError('the file is damaged or edited: its checksum does not match its contents')
        // Blank lines after it change nothing the checksum covers (an editor or `echo >>` may add one); anything
        // else is another file's start (two files joined) or damage.
        for (let after = await lines.next(); after.done !== true; after = await lines.next())
          if (after.value.trim() !== '')
            throw new DamagedFileError('the file is damaged: lines follow its closing line')
        return record
      }
      checksum.add(`${next.value}\n`)
      yield record
    }
  }
  return { header, records, close: () => input.destroy() }
}
