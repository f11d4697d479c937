// Reading a shop file line by line, checking it as it goes: the header first, then the records, which count
// only once the closing line's checksum matches every byte before it and nothing follows it.
import { createReadStream } from 'node:fs'
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

export async function openShopFile(source: string): Promise<ShopFileReader> {
  let input: Readable = process.stdin
  if (source !== '-') {
    try {
      await access(source)
    } catch {
      throw new MissingFileError(`no such file: ${source}`)
    }
    input = createReadStream(source)
  }
  const lines = createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]()
  const first = await lines.next()
  const headerLine = first.done === true ? undefined : first.value
  const header = parseHeader(headerLine)
  const checksum = new Checksum()
  checksum.add(`${headerLine}\n`)

  async function* records(): AsyncGenerator<ShopRecord, Closing> {
    let lineNumber = 1
    for (;;) {
      const next = await lines.next()
      if (next.done === true) throw new DamagedFileError('the file is truncated: it ends before its closing line')
      lineNumber++
      const record = parseBody(next.value, lineNumber)
      if ('end' in record) {
        if (record.sha256 !== checksum.hex())
          throw new DamagedFileError('the file is damaged or edited: its checksum does not match its contents')
        if ((await lines.next()).done !== true)
          throw new DamagedFileError('the file is damaged: lines follow its closing line')
        return record
      }
      checksum.add(`${next.value}\n`)
      yield record
    }
  }
  return { header, records, close: () => input.destroy() }
}
