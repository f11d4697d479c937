// A receiver's answer to a delivery attempt, read off the wire (outbound-http.ts). The status line decides the
// outcome as soon as it arrives; the body is only for the log: at most 4 KiB of it, read for a short while after
// the status. A receiver that answers 200 and never ends its body has answered: waiting for the end made such an
// attempt time out, be sent again, and have its endpoint throttled as one that hangs.
import type { IncomingMessage } from 'node:http'

export const RESPONSE_BODY_LIMIT_BYTES = 4096
/**
 * How long the body is read after the status, at most (and never past the attempt's time-out, which aborts the
 * request): what a receiver sends with its answer arrives well within it; one that drips its body holds its
 * delivery place no longer.
 */
const RESPONSE_BODY_WAIT_MS = 1000

export interface ReceiverAnswer {
  status: number
  /** The start of the body (at most RESPONSE_BODY_LIMIT_BYTES): what arrived of it. */
  body: Buffer
}

/** Resolves with the status and what arrives of the body; never rejects: the answer is in. */
export function readAnswer(response: IncomingMessage): Promise<ReceiverAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    let read = false
    // Whatever ends the reading (the body ends, there is enough for the log, the wait is over, the connection
    // breaks, the attempt's deadline aborts the request), the answer is what arrived.
    const done = () => {
      if (read) return
      read = true
      clearTimeout(wait)
      resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT_BYTES) })
      // The rest is not read: the connection is closed rather than drained.
      if (!response.complete) response.destroy()
    }
    const wait = setTimeout(done, RESPONSE_BODY_WAIT_MS)
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      if (size >= RESPONSE_BODY_LIMIT_BYTES) done()
    })
    response.on('end', done)
    response.on('error', done)
    response.on('close', done)
  })
}

/**
 * The body as text for the delivery log: UTF-8, with U+FFFD for what is not (as TextDecoder does) and for NUL,
 * which PostgreSQL's text cannot hold: stored as is, it failed the write of every outcome recorded with it.
 */
export function logText(body: Buffer): string {
  return withoutNul(new TextDecoder().decode(body))
}

/** The text with U+FFFD for NUL: as the delivery log holds a body, also one logged before it was so. */
export function withoutNul(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD')
}
