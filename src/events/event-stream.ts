// The body of an event stream: Server-Sent Events (HTML Living Standard, section 9.2), written as the
// subscription yields events, with a comment line whenever it has been quiet for the heartbeat interval. It
// respects backpressure (a slow client is not buffered for), and ends (a complete response, never an aborted
// one) when the subscription ends (the client went away, or the service shuts down) or when its key no longer
// holds: revoked or expired keys get nothing more, as they would on a new request.
import { Readable } from 'node:stream'
import type { FeedEvent } from './event.mapper.js'
import type { EventSubscription } from './event.service.js'
import { Gone } from '../domain/errors.js'

export interface EventStreamOptions {
  /** Where the stream starts, named in its first line. */
  after: number
  heartbeatMs: number
  /**
   * Whether the stream's key still holds (not revoked, not expired): asked before a heartbeat, before events
   * when it was last asked `keyRecheckMs` ago or more, and `keyRecheckMs` after the last check while the stream is
   * quiet. False ends the stream. A check that fails (the database unreachable) decides nothing: the stream goes
   * on, as it does through an outage, and asks again next time.
   */
  stillAuthorized: () => Promise<boolean>
  keyRecheckMs: number
  onError: (error: unknown) => void
  onCheckFailed: (error: unknown) => void
  /** Bytes written to the response that its client has not taken yet (beyond what the body itself holds). */
  unsent: () => number
}

/** One event: its id (what an EventSource sends back as Last-Event-ID), its type, and its JSON on one line. */
function serverSentEvent(event: FeedEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${event.json}\n\n`
}

export const HEARTBEAT = ': heartbeat\n\n'

/**
 * A heartbeat that also moves the client's Last-Event-ID to `position`, past events of other types the stream
 * looked at and did not send: an `id:` field without `data:` sets an EventSource's last event id and dispatches
 * nothing. Without it, a filtered stream's client would reconnect after its last matching event, however old: it
 * would read every event since again, and be refused (410) once that event is purged though it missed nothing.
 */
function heartbeatAt(position: number): string {
  return `: heartbeat\nid: ${position}\n\n`
}
/** The last line of a stream whose key no longer holds; a client that reconnects is then answered 401 or 403. */
export const KEY_NO_LONGER_VALID = ': the API key is no longer valid for this stream\n\n'

function delay(milliseconds: number): { elapsed: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, milliseconds)))
  return { elapsed, cancel: () => clearTimeout(timer) }
}

export function eventStreamBody(
  subscription: EventSubscription,
  { after, heartbeatMs, stillAuthorized, keyRecheckMs, onError, onCheckFailed, unsent }: EventStreamOptions,
): Readable {
  let drained: (() => void) | undefined
  const body = new Readable({
    read() {
      drained?.()
      drained = undefined
    },
  })
  // The client went away (or the response was destroyed): the subscription gives its place back at once.
  body.once('close', () => {
    subscription.close()
    drained?.()
  })

  let waitingForDrain = false
  const write = async (text: string) => {
    // A client gone while the stream waited: nothing can drain a destroyed body.
    if (body.destroyed) return
    if (body.push(text)) return
    waitingForDrain = true
    await new Promise<void>((resolve) => (drained = resolve))
    waitingForDrain = false
  }
  // The service shuts down while its client has not taken what was written (it stopped reading, or vanished
  // without closing): ending the response after that would hold it, and the shutdown, for as long as the client
  // likes. The connection is cut instead; an EventSource reconnects and resumes after the last event it received
  // whole. A client that has taken everything gets the end of the stream.
  void subscription.shutDown.then(() => {
    if (!body.destroyed && (waitingForDrain || body.readableLength > 0 || unsent() > 0)) body.destroy()
  })

  // When the last check started (the time a check takes does not push the next one back).
  let checkedAt = performance.now()
  // A quiet stream asks too, keyRecheckMs after the last check (when that is shorter than the heartbeat): a key
  // revoked while nothing happens ends its stream within that time, not at the next heartbeat only. One timer,
  // set again after every check, whichever asked: a timer of a fixed period would find a check made a moment
  // later than its own tick too recent, skip, and ask every other period.
  const watching = keyRecheckMs > 0 && keyRecheckMs < heartbeatMs
  let revoked = false
  let watch: NodeJS.Timeout | undefined
  const watchLater = () => {
    clearTimeout(watch)
    if (!watching || revoked || subscription.ended) return
    watch = setTimeout(
      () => {
        keyHolds(true).then((holds) => {
          if (holds || subscription.ended) return
          revoked = true
          subscription.close()
        }, onError)
      },
      Math.max(0, checkedAt + keyRecheckMs - performance.now()),
    )
  }

  /** The check in progress: every caller shares it, so one stream never asks twice at once. */
  let checking: Promise<boolean> | undefined
  /** False once the key no longer holds; true when it holds, was checked lately, or could not be checked. */
  const keyHolds = (heartbeat: boolean): Promise<boolean> => {
    if (checking) return checking
    if (!heartbeat && performance.now() - checkedAt < keyRecheckMs) return Promise.resolve(true)
    const started = performance.now()
    checkedAt = started
    checking = (async () => {
      let failed = false
      try {
        return await stillAuthorized()
      } catch (error) {
        onCheckFailed(error)
        failed = true
        return true
      } finally {
        checking = undefined
        // The next check an interval after this one started; but after one that failed or outlasted the interval
        // (the database slow or away), an interval after it ended: never one check straight after another.
        const ended = performance.now()
        if (failed || ended - started >= keyRecheckMs) checkedAt = ended
        watchLater()
      }
    })()
    return checking
  }
  watchLater()

  /** The client's Last-Event-ID once it has read what was written (the position it would reconnect from). */
  let sentThrough = subscription.initial.at(-1)?.id ?? after
  const heartbeat = () => {
    if (subscription.position <= sentThrough) return HEARTBEAT
    sentThrough = subscription.position
    return heartbeatAt(sentThrough)
  }

  const pump = async () => {
    // A first line at once, so that the client sees the stream open before the first event.
    await write(`: events after ${after}\n\n${subscription.initial.map(serverSentEvent).join('')}`)
    while (!subscription.ended) {
      const quiet = delay(heartbeatMs)
      const events = await subscription.next(quiet.elapsed)
      quiet.cancel()
      if (subscription.ended) break
      const holds = await keyHolds(events.length === 0)
      if (subscription.ended || body.destroyed) break
      if (!holds) {
        revoked = true
        break
      }
      sentThrough = events.at(-1)?.id ?? sentThrough
      await write(events.length > 0 ? events.map(serverSentEvent).join('') : heartbeat())
    }
    // Written here only: the watch and the loop may both learn of it from the one check they shared.
    if (revoked && !body.destroyed) await write(KEY_NO_LONGER_VALID)
  }

  pump()
    // Gone: the feed no longer holds the stream's position (the database went back in time). Not a fault of the
    // service: the stream ends, and the reconnection is answered 410, which the client is told and the log shows.
    .catch((error: unknown) => (error instanceof Gone ? undefined : onError(error)))
    .finally(() => {
      subscription.close()
      clearTimeout(watch)
      if (!body.destroyed) body.push(null)
    })
  return body
}
