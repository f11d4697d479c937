// Reading a shop file line by line, checking it as it goes: the header first, then the records, which count
// only once the closing line's checksum matches every byte before it and nothing but blank lines follows it.
import { createReadStream, statSync } from 'node:fs'
import { access } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { Checksum } from './checksum.js'
import { DamagedFileError } from './columns.js'
import { parseBody, parseHeader, type Closing, type Header, type ShopRecord } from './format.js'

export class MissingFileError extends Error {}

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
