// The first-run key on standard output, where the operator reads it once. A key the output could not take is
// withdrawn: kept, it would be a working key nobody has seen, and it would keep every later start from printing
// another (they print one only while no key is stored).
import { writeSync } from 'node:fs'
import type { DataAccess } from '../db/database.js'
import { deleteUnusedApiKey } from './key.repository.js'

export function firstRunMessage(key: string): string {
  return (
    '\nFirst run: created an API key. It is shown only this once; store it now:\n\n' +
    `    ${key}\n\n` +
    'Use it as "Authorization: Bearer <key>". Create more with: npx petstore keys create --name NAME\n\n'
  )
}

/**
 * Writes the message at once, or not at all. Through process.stdout a failure (the reader gone: EPIPE; /dev/full:
 * ENOSPC; a full pipe: EAGAIN) came back later as an 'error' event nobody could handle, and the service stopped with
 * exit code 1 and not a word, its unseen key kept.
 */
function writeToStandardOutput(text: string): NodeJS.ErrnoException | undefined {
  const bytes = Buffer.from(text)
  try {
    // Under PIPE_BUF, a write to a pipe is whole or fails; a file or terminal takes it whole too.
    if (writeSync(process.stdout.fd, bytes) === bytes.length) return undefined
    return Object.assign(new Error('the message was written in part'), { code: 'EIO' })
  } catch (error) {
    return error as NodeJS.ErrnoException
  }
}

/**
 * Shows the first-run key, or withdraws it and says so on standard error when it cannot be shown. Never throws: the
 * service is listening by now, and keeps serving either way.
 */
export async function showFirstRunKey(data: DataAccess, { key, id }: { key: string; id: number }): Promise<void> {
  const failure = writeToStandardOutput(firstRunMessage(key))
  if (!failure) return
  const unwritten = `the first-run API key could not be written to standard output (${failure.code ?? failure.message})`
  try {
    await data.transaction((trx) => deleteUnusedApiKey(trx, id))
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    console.error(
      `petstore: warning: ${unwritten}, nor withdrawn (${reason}): revoke it with petstore keys revoke ${id}`,
    )
    return
  }
  console.error(
    `petstore: warning: ${unwritten}; it was withdrawn: start again with standard output readable to get one, ` +
      'or create one with petstore keys create --name NAME',
  )
}
