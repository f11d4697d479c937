// Standard output for the logs, made so that a log reader that is gone or stuck can never keep the service
// from stopping. pino's own destination (sonic-boom) flushes synchronously at exit and retries a failed
// write there forever, every 100 ms: EAGAIN (a full pipe nobody reads), but also EPIPE when the reader died
// before a background write noticed. The process then ignores SIGTERM for good. Here, a write that fails
// with anything but EAGAIN ends logging, EAGAIN is waited for only in the background, and the exit flush
// writes what the descriptor takes at once and drops the rest.
import { writeSync } from 'node:fs'
import type { DestinationStream } from 'pino'

/** Logs held while the reader does not keep up; beyond this, new lines are dropped rather than held in memory. */
const MAX_QUEUED_CHARACTERS = 8 * 1024 * 1024
/** How long to wait before writing again to a full pipe (sonic-boom's interval). */
const RETRY_MS = 100

type State = 'idle' | 'scheduled' | 'writing' | 'waiting' | 'broken'

class LogDestination implements DestinationStream {
  private readonly fd: number
  private queue: string[] = []
  private queuedCharacters = 0
  /** The chunk being written, or waiting to be written again. */
  private chunk: Buffer | undefined
  private state: State = 'idle'

  constructor(fd: number) {
    this.fd = fd
  }

  write(line: string): void {
    if (this.state === 'broken' || this.queuedCharacters + line.length > MAX_QUEUED_CHARACTERS) return
    this.queue.push(line)
    this.queuedCharacters += line.length
    if (this.state !== 'idle') return
    // The lines of one event-loop turn (one a request under load) go out in one write, not one write each:
    // a write per line cost as much as the rest of the logging.
    this.state = 'scheduled'
    setImmediate(() => {
      if (this.state === 'scheduled') this.writeQueued()
    })
  }

  /** At exit: what the descriptor takes now, without waiting for a reader; the rest is lost. */
  flushSync(): void {
    // A chunk being written in the background may be written already: writing it again could repeat it.
    const pending = [...(this.state === 'waiting' && this.chunk ? [this.chunk] : []), Buffer.from(this.queue.join(''))]
    this.queue = []
    this.queuedCharacters = 0
    if (this.state === 'broken') return
    this.state = 'broken'
    let rest = Buffer.concat(pending)
    try {
      while (rest.length > 0) {
        const written = writeSync(this.fd, rest)
        if (written === 0) return
        rest = rest.subarray(written)
      }
    } catch {
      // EAGAIN (the pipe is full) or EPIPE (nobody reads it): nothing more can be delivered.
    }
  }

  private writeQueued(): void {
    if (this.queue.length === 0) {
      this.state = 'idle'
      return
    }
    this.chunk = Buffer.from(this.queue.join(''))
    this.queue = []
    this.queuedCharacters = 0
    this.writeChunk()
  }

  private writeChunk(): void {
    const chunk = this.chunk
    if (!chunk || this.state === 'broken') return
    this.state = 'writing'
    let written: number
    try {
      // Synchronous, as pino's own destination is by default: an asynchronous write costs a thread-pool round
      // trip (about 20 µs of CPU against under 1 µs), which under load was a seventh of the service's time. It
      // never blocks on a pipe: standard output is non-blocking there, so a full pipe answers EAGAIN at once.
      written = writeSync(this.fd, chunk)
    } catch (error) {
      if (isErrnoException(error) && error.code === 'EAGAIN') {
        this.state = 'waiting'
        // Unreferenced: a full pipe must not keep a process alive that has nothing else to do.
        setTimeout(() => this.writeChunk(), RETRY_MS).unref()
      } else {
        // EPIPE and every other failure: the destination is gone, and the service runs on without logs.
        this.state = 'broken'
        this.queue = []
        this.queuedCharacters = 0
      }
      return
    }
    if (written < chunk.length) {
      this.chunk = chunk.subarray(written)
      this.writeChunk()
    } else {
      this.chunk = undefined
      this.writeQueued()
    }
  }
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error
}

/** The service's log destination: standard output, flushed (without waiting) when the process exits. */
export function createLogDestination(): LogDestination {
  // Through process.stdout, as pino's default does: for a pipe this makes the descriptor non-blocking, so that
  // a full pipe answers EAGAIN instead of blocking a write, and the process, indefinitely.
  const destination = new LogDestination(process.stdout.fd)
  process.once('exit', () => destination.flushSync())
  return destination
}
