// A small Server-Sent Events reader (HTML Living Standard §9.2.6) over a fetch body, for browsers and Node alike:
// unlike EventSource, fetch can send the Authorization header.

export interface ServerSentEvent {
  /** The last event id seen on this stream (`id:`), carried over to events that set none. */
  lastEventId: string
  /** `event:`, or `message` when the event names no type. */
  type: string
  data: string
}

export interface SseHandlers {
  /** `retry:`: the reconnection time the server asks for, in milliseconds. */
  onRetry?: (milliseconds: number) => void
}

/** The events of a text/event-stream body, in order; comments (heartbeats) and events without data are skipped. */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  handlers: SseHandlers = {},
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reader = body.getReader()
  const decoder = new TextDecoder('utf-8')
  let buffer = ''
  let first = true
  let lastEventId = ''
  let type = ''
  let data: string[] = []
  try {
    for (;;) {
      const { done, value } = await reader.read()
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true })
      if (first && buffer.length > 0) {
        if (buffer.startsWith('\uFEFF')) buffer = buffer.slice(1)
        first = false
      }
      for (;;) {
        const end = buffer.search(/[\r\n]/)
        if (end === -1) break
        // A CR at the very end of what arrived may be the first half of a CRLF: wait for the next chunk.
        if (buffer[end] === '\r' && end === buffer.length - 1 && !done) break
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + (buffer[end] === '\r' && buffer[end + 1] === '\n' ? 2 : 1))
        if (line === '') {
          if (data.length > 0) yield { lastEventId, type: type || 'message', data: data.join('\n') }
          type = ''
          data = []
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon === -1 ? line : line.slice(0, colon)
        const fieldValue = colon === -1 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1))
        if (field === 'data') data.push(fieldValue)
        else if (field === 'event') type = fieldValue
        else if (field === 'id' && !fieldValue.includes('\0')) lastEventId = fieldValue
        else if (field === 'retry' && /^\d+$/.test(fieldValue)) handlers.onRetry?.(Number(fieldValue))
      }
      // An event not closed by an empty line when the stream ends is dropped, as the standard says.
      if (done) return
    }
  } finally {
    // Closes the connection when the reader stops early (the consumer broke out of its loop).
    await reader.cancel().catch(() => undefined)
  }
}
