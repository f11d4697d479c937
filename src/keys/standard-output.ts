// Writing a key shown only once to standard output: at once, and with the failure in hand. Through
// process.stdout or console.log a failure (the reader gone: EPIPE; a full disk or /dev/full: ENOSPC) is reported
// later as an event, or not at all, while the key it carried stays stored and working, seen by nobody.
import { writeSync } from 'node:fs'

/** Writes `text` whole to standard output; the error when it could not. */
export function writeToStandardOutput(text: string): NodeJS.ErrnoException | undefined {
  const bytes = Buffer.from(text)
  try {
    // Under PIPE_BUF, a write to a pipe is whole or fails; a file or terminal takes it whole or fails too.
    if (writeSync(process.stdout.fd, bytes) === bytes.length) return undefined
    return Object.assign(new Error('the output was written in part'), { code: 'EIO' })
  } catch (error) {
    return error as NodeJS.ErrnoException
  }
}

/** How a failure of writeToStandardOutput is named in a message: its code (EPIPE, ENOSPC), else its words. */
export const failureName = (failure: NodeJS.ErrnoException): string => failure.code ?? failure.message
